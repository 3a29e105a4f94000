"""A scripted OpenAI-compatible server for tests (house style §9); see :mod:`tests.fake_llm.server`."""

from tests.fake_llm.server import CHAT_PATH, FakeLLMServer, RecordedRequest, Reply

__all__ = ["CHAT_PATH", "FakeLLMServer", "RecordedRequest", "Reply"]
