"""LLMClient over real HTTP against the scripted fake server (issue 2 part 3; seed 002 FR-11)."""

from __future__ import annotations

import threading
import time

import pytest

from localagent.config import Settings
from localagent.errors import Aborted, ConfigError, ModelAPIError, ModelTimeout
from localagent.llm.client import ChatClient, LLMClient
from tests.fake_llm import CHAT_PATH, FakeLLMServer, Reply
from tests.fake_llm.fixtures import TEST_KEY, fake_llm_fixture  # noqa: F401

MESSAGES = [{"role": "user", "content": "你好"}]
FAST = (0.01, 0.02, 0.03)


def make_client(server: FakeLLMServer, **kwargs) -> LLMClient:
    kwargs.setdefault("backoff", FAST)
    kwargs.setdefault("timeout", 5.0)
    return LLMClient(server.url, TEST_KEY, **kwargs)


# -- happy paths -------------------------------------------------------------------------
def test_chat_json_round_trip(fake_llm):
    fake_llm.script(Reply.text("你好，我在。"))
    client = make_client(fake_llm)
    assert client.chat(MESSAGES, "intent-model", temperature=0.1, max_tokens=64) == "你好，我在。"
    (req,) = fake_llm.requests
    assert req.method == "POST" and req.path == CHAT_PATH
    assert req.body["model"] == "intent-model" and req.body["messages"] == MESSAGES
    assert req.body["stream"] is False and req.body["temperature"] == 0.1 and req.body["max_tokens"] == 64


def test_stream_yields_deltas_and_counts_usage(fake_llm):
    fake_llm.script(Reply.stream(["一", "二", "三"], prompt_tokens=11, completion_tokens=3))
    client = make_client(fake_llm)
    assert list(client.stream(MESSAGES, "gen")) == ["一", "二", "三"]
    assert fake_llm.requests[0].body["stream"] is True
    assert (client.usage.calls, client.usage.prompt_tokens, client.usage.completion_tokens) == (1, 11, 3)


def test_text_reply_is_served_as_a_stream_when_asked(fake_llm):
    fake_llm.script(Reply.text("整段"))
    assert "".join(make_client(fake_llm).stream(MESSAGES, "gen")) == "整段"


def test_usage_counts_calls_and_tokens(fake_llm):
    fake_llm.script(Reply.text("a", prompt_tokens=100, completion_tokens=5),
                    Reply.status(429, "busy"), Reply.text("b", prompt_tokens=200, completion_tokens=7))
    client = make_client(fake_llm)
    client.chat(MESSAGES, "m")
    client.chat(MESSAGES, "m")
    usage = client.usage
    assert (usage.calls, usage.requests, usage.retries) == (2, 3, 1)
    assert (usage.prompt_tokens, usage.completion_tokens) == (300, 12)


def test_llm_client_satisfies_chat_client_protocol(fake_llm):
    fake_llm.script(Reply.text("ok"))
    client: ChatClient = make_client(fake_llm)
    assert client.chat(MESSAGES, "m") == "ok"


# -- errors that are not retried -----------------------------------------------------------
def test_401_is_not_retried_and_says_status_without_key(fake_llm):
    fake_llm.script(Reply.status(401, f"Incorrect API key provided: {TEST_KEY}"))
    with pytest.raises(ModelAPIError) as info:
        make_client(fake_llm).chat(MESSAGES, "m")
    err = info.value
    assert err.status == 401 and len(fake_llm.requests) == 1
    assert "401" in err.zh and "401" in err.en and "LLM_API_KEY" in err.zh
    assert "Incorrect API key provided" in err.en
    for text in (err.zh, err.en, err.provider_message, str(err)):
        assert TEST_KEY not in text


@pytest.mark.parametrize("status", [400, 403, 404, 422])
def test_other_client_errors_are_not_retried(fake_llm, status):
    fake_llm.script(Reply.status(status, "no such model"))
    with pytest.raises(ModelAPIError) as info:
        make_client(fake_llm).chat(MESSAGES, "m")
    assert info.value.status == status and f"({status})" in info.value.zh
    assert "no such model" in info.value.provider_message
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize("reply", [
    Reply.garbage("<html>hello</html>"),
    Reply.garbage("not json at all", content_type="application/json"),
    Reply.garbage('{"object": "something else"}', content_type="application/json"),
], ids=["html", "json-content-type", "no-choices-field"])
def test_garbage_body_is_a_clear_error_not_retried(fake_llm, reply):
    fake_llm.script(reply)
    with pytest.raises(ModelAPIError) as info:
        make_client(fake_llm).chat(MESSAGES, "m")
    assert "无法识别" in info.value.zh and len(fake_llm.requests) == 1


@pytest.mark.parametrize("body, words", [
    ('{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}', "choices"),
    ('{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": '
     '[{"index": 0, "message": {"role": "assistant", "content": null}, "finish_reason": "stop"}]}', "文本"),
], ids=["empty-choices", "null-content"])
def test_completion_without_text_is_an_error(fake_llm, body, words):
    fake_llm.script(Reply.garbage(body, content_type="application/json"))
    with pytest.raises(ModelAPIError) as info:
        make_client(fake_llm).chat(MESSAGES, "m")
    assert words in info.value.zh


# -- retries ------------------------------------------------------------------------------
def test_429_then_200_is_retried_once(fake_llm):
    fake_llm.script(Reply.status(429, "rate limited"), Reply.text("好了"))
    seen = []
    client = make_client(fake_llm, on_retry=lambda attempt, delay, err: seen.append((attempt, delay, err.status)))
    assert client.chat(MESSAGES, "m") == "好了"
    assert seen == [(1, FAST[0], 429)] and len(fake_llm.requests) == 2


def test_500_four_times_gives_up_after_three_retries(fake_llm):
    fake_llm.script(*[Reply.status(500, "boom")] * 4)
    seen = []
    client = make_client(fake_llm, on_retry=lambda attempt, delay, err: seen.append(attempt))
    with pytest.raises(ModelAPIError) as info:
        client.chat(MESSAGES, "m")
    assert info.value.status == 500 and "已重试 3 次" in info.value.zh and "boom" in info.value.en
    assert seen == [1, 2, 3] and len(fake_llm.requests) == 4


def test_max_retries_is_capped_at_three(fake_llm):
    fake_llm.script(*[Reply.status(503, "down")] * 4)
    client = make_client(fake_llm, max_retries=10)
    with pytest.raises(ModelAPIError):
        client.chat(MESSAGES, "m")
    assert client.max_retries == 3 and len(fake_llm.requests) == 4


def test_slow_answer_times_out_after_retries(fake_llm):
    fake_llm.script(Reply.delay(5), Reply.delay(5))
    client = make_client(fake_llm, timeout=0.3, max_retries=1)
    with pytest.raises(ModelTimeout) as info:
        client.chat(MESSAGES, "m")
    assert "超时" in info.value.zh and info.value.status is None
    assert len(fake_llm.requests) == 2


def test_disconnect_is_retried(fake_llm):
    fake_llm.script(Reply.disconnect(), Reply.text("reconnected"))
    assert make_client(fake_llm).chat(MESSAGES, "m") == "reconnected"
    assert len(fake_llm.requests) == 2


def test_connection_refused_is_a_clear_error():
    with FakeLLMServer() as server:
        url = server.url
    client = LLMClient(url, TEST_KEY, max_retries=1, backoff=FAST)
    with pytest.raises(ModelAPIError) as info:
        client.chat(MESSAGES, "m")
    assert "LLM_API_URL" in info.value.zh and info.value.status is None
    assert client.usage.requests == 2


def test_stream_failing_before_any_text_is_retried(fake_llm):
    fake_llm.script(Reply.stream_then_fail([]), Reply.stream(["完整"]))
    assert list(make_client(fake_llm).stream(MESSAGES, "m")) == ["完整"]
    assert len(fake_llm.requests) == 2


def test_stream_failing_after_text_is_raised_not_replayed(fake_llm):
    fake_llm.script(Reply.stream_then_fail(["前半句"]))
    got = []
    with pytest.raises(ModelAPIError) as info:
        for piece in make_client(fake_llm).stream(MESSAGES, "m"):
            got.append(piece)
    assert got == ["前半句"] and "不完整" in info.value.zh
    assert len(fake_llm.requests) == 1


def test_stream_error_status_is_retried_before_output(fake_llm):
    fake_llm.script(Reply.status(502, "bad gateway"), Reply.stream(["ok"]))
    assert list(make_client(fake_llm).stream(MESSAGES, "m")) == ["ok"]


def test_stream_of_garbage_is_an_error(fake_llm):
    fake_llm.script(Reply.garbage("<html>oops</html>"))
    with pytest.raises(ModelAPIError):
        list(make_client(fake_llm).stream(MESSAGES, "m"))
    assert len(fake_llm.requests) == 1


# -- cancel ---------------------------------------------------------------------------------
def test_cancel_during_backoff_wait_returns_at_once(fake_llm):
    fake_llm.script(Reply.status(503, "busy"))
    cancel, waiting = threading.Event(), threading.Event()
    client = make_client(fake_llm, backoff=(30.0,), cancel_event=cancel,
                         on_retry=lambda *_: waiting.set())
    threading.Thread(target=lambda: waiting.wait(10) and cancel.set(), daemon=True).start()
    started = time.monotonic()
    with pytest.raises(Aborted):
        client.chat(MESSAGES, "m")
    assert time.monotonic() - started < 10  # a hang guard: the wait would be 30 s
    assert len(fake_llm.requests) == 1


def test_cancel_before_call_sends_nothing(fake_llm):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Aborted):
        make_client(fake_llm, cancel_event=cancel).chat(MESSAGES, "m")
    assert fake_llm.requests == []


def test_cancel_between_stream_chunks(fake_llm):
    fake_llm.script(Reply.stream(["a", "b", "c"]))
    cancel = threading.Event()
    got = []
    with pytest.raises(Aborted):
        for piece in make_client(fake_llm, cancel_event=cancel).stream(MESSAGES, "m"):
            got.append(piece)
            cancel.set()
    assert got == ["a"] and len(fake_llm.requests) == 1


# -- the key and the URL ------------------------------------------------------------------------
def test_key_goes_only_to_the_configured_url_as_bearer_header():
    with FakeLLMServer(expected_key=TEST_KEY) as server, FakeLLMServer() as other:
        server.script(Reply.text("a"), Reply.stream(["b"]), Reply.status(500, f"echo {TEST_KEY}"),
                      Reply.status(400, f"bad request for key {TEST_KEY}"))
        client = LLMClient(server.chat_url.removesuffix("/chat/completions"), TEST_KEY, backoff=FAST)
        client.chat(MESSAGES, "m")
        list(client.stream(MESSAGES, "m"))
        with pytest.raises(ModelAPIError) as info:
            client.chat(MESSAGES, "m")
        server.assert_key_only_in_auth(TEST_KEY)
        server.assert_all_used()
        assert other.requests == []
        assert TEST_KEY not in info.value.zh + info.value.en + info.value.provider_message
        assert TEST_KEY not in repr(client)


def test_wrong_key_gets_401_from_server():
    with FakeLLMServer(expected_key="sk-right") as server:
        with pytest.raises(ModelAPIError) as info:
            LLMClient(server.url, "sk-wrong", backoff=FAST).chat(MESSAGES, "m")
        assert info.value.status == 401 and len(server.requests) == 1


@pytest.mark.parametrize("use_full_url", [True, False], ids=["chat-completions-url", "base-url"])
def test_settings_url_forms_both_work(fake_llm, use_full_url):
    fake_llm.script(Reply.text("ok"))
    url = fake_llm.chat_url if use_full_url else fake_llm.url
    settings = Settings(llm_api_url=url, llm_api_key=TEST_KEY, llm_timeout=5.0)
    client = LLMClient.from_settings(settings)
    assert client.chat(MESSAGES, settings.intent_model_name) == "ok"
    assert fake_llm.requests[0].path == CHAT_PATH
    assert fake_llm.requests[0].headers["authorization"] == f"Bearer {TEST_KEY}"


@pytest.mark.parametrize("key", ["", "your_api_key_here"])
def test_from_settings_without_key_is_config_error(fake_llm, key):
    with pytest.raises(ConfigError) as info:
        LLMClient.from_settings(Settings(llm_api_url=fake_llm.url, llm_api_key=key))
    assert "LLM_API_KEY" in info.value.zh and fake_llm.requests == []


# -- the fake server keeps tests honest -------------------------------------------------------------
def test_fake_server_flags_unscripted_call_and_unused_reply():
    with FakeLLMServer() as server:
        with pytest.raises(ModelAPIError):
            LLMClient(server.url, TEST_KEY, max_retries=0).chat(MESSAGES, "m")
        assert any("unexpected request" in e for e in server.errors)
        with pytest.raises(AssertionError, match="unexpected request"):
            server.assert_all_used()
    with FakeLLMServer() as server:
        server.script(Reply.text("never asked"))
        with pytest.raises(AssertionError, match="never requested"):
            server.assert_all_used()


def test_fake_server_flags_stream_scripted_for_plain_call():
    with FakeLLMServer() as server:
        server.script(Reply.stream(["x"]))
        with pytest.raises(ModelAPIError):
            LLMClient(server.url, TEST_KEY, max_retries=0).chat(MESSAGES, "m")
        assert any("did not ask for stream" in e for e in server.errors)


def test_fake_server_tool_calls_and_answer_invariant():
    from openai import BadRequestError, OpenAI

    with FakeLLMServer() as server:
        server.script(Reply.tool_calls([{"name": "list_files", "arguments": {"path": "input"}, "id": "c1"}]),
                      Reply.text("done"))
        sdk = OpenAI(base_url=server.url, api_key=TEST_KEY, max_retries=0)
        first = sdk.chat.completions.create(model="m", messages=MESSAGES)
        call = first.choices[0].message.tool_calls[0]
        assert (call.id, call.function.name, call.function.arguments) == ("c1", "list_files", '{"path": "input"}')
        turn = {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]}
        answer = {"role": "tool", "tool_call_id": "c1", "content": "a.txt"}
        second = sdk.chat.completions.create(model="m", messages=[*MESSAGES, turn, answer])
        assert second.choices[0].message.content == "done" and server.errors == []
        with pytest.raises(BadRequestError):
            sdk.chat.completions.create(model="m", messages=[*MESSAGES, turn, answer, answer])
        assert any("exactly once" in e for e in server.errors)
        sdk.close()
