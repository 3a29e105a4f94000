"""Pytest fixtures around :class:`FakeLLMServer`.

The fixture is named ``fake_llm``. Use it from a test module with
``from tests.fake_llm.fixtures import fake_llm_fixture  # noqa: F401`` (no ruff F811
on test parameters named ``fake_llm``), or ``import fake_llm`` (an alias), or list
this module in ``pytest_plugins`` of the root conftest.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fake_llm.server import FakeLLMServer

#: The key tests configure; the server's ``expected_key`` when a test sets it.
TEST_KEY = "sk-test-0123456789abcdef"


@pytest.fixture(name="fake_llm")
def fake_llm_fixture() -> Iterator[FakeLLMServer]:
    """Yield a started fake server; after the test, fail on unused replies or broken invariants.

    A test that breaks an invariant on purpose sets ``fake_llm.verify_on_exit = False``.
    """
    with FakeLLMServer() as server:
        yield server
        if server.verify_on_exit:
            server.assert_all_used()


#: Alias so ``from tests.fake_llm.fixtures import fake_llm`` also works.
fake_llm = fake_llm_fixture
