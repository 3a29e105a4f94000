"""Intent classification over real HTTP against the scripted fake server (issue 2 part 5; seed 000 意图识别)."""

from __future__ import annotations

import json

import pytest

from localagent.errors import ModelAPIError
from localagent.intent.classifier import INTENT_MAX_TOKENS, MAX_INTENT_CHARS, classify, interpret_answer
from localagent.intent.labels import CHAT, EXECUTION
from localagent.llm.client import LLMClient
from tests.fake_llm.fixtures import TEST_KEY, fake_llm  # noqa: F401
from tests.fake_llm.server import Reply

MODEL = "qwen2.5:7b-instruct"
UNSURE = "整理照片"  # the rules leave this to the model


@pytest.fixture
def client(fake_llm):  # noqa: F811
    llm = LLMClient(fake_llm.url, TEST_KEY, timeout=10.0, max_retries=0)
    yield llm
    llm.close()


def _answer(label="execution", confidence=0.9, reason="要求整理用户的照片文件") -> str:
    return json.dumps({"label": label, "confidence": confidence, "reason": reason}, ensure_ascii=False)


def test_model_execution_is_accepted(fake_llm, client):  # noqa: F811
    fake_llm.script(Reply.text(_answer()))
    result = classify(UNSURE, client, MODEL)
    assert (result.label, result.confidence, result.source) == (EXECUTION, 0.9, "llm")
    assert result.reason == "要求整理用户的照片文件"
    body = fake_llm.requests[0].body
    assert (body["model"], body["temperature"], body["max_tokens"]) == (MODEL, 0.0, INTENT_MAX_TOKENS)
    assert UNSURE in json.dumps(body["messages"], ensure_ascii=False)
    fake_llm.assert_key_only_in_auth(TEST_KEY)


def test_model_chat_is_accepted(fake_llm, client):  # noqa: F811
    fake_llm.script(Reply.text(_answer("chat", 0.3, "这是闲聊")))
    result = classify("我好无聊", client, MODEL)
    assert (result.label, result.confidence, result.source) == (CHAT, 0.3, "llm")


def test_low_confidence_execution_falls_back_to_chat(fake_llm, client):  # noqa: F811
    fake_llm.script(Reply.text(_answer(confidence=0.4)))
    result = classify(UNSURE, client, MODEL)
    assert (result.label, result.source, result.confidence) == (CHAT, "fallback", 0.0)
    assert "0.4" in result.reason and "0.6" in result.reason


def test_threshold_itself_is_execution(fake_llm, client):  # noqa: F811
    fake_llm.script(Reply.text(_answer(confidence=0.6)))
    assert classify(UNSURE, client, MODEL).label == EXECUTION


def test_integer_confidence_is_a_number(fake_llm, client):  # noqa: F811
    fake_llm.script(Reply.text('{"label": "execution", "confidence": 1, "reason": "明确的文件任务"}'))
    result = classify(UNSURE, client, MODEL)
    assert (result.label, result.confidence, result.source) == (EXECUTION, 1.0, "llm")


def test_fenced_json_with_prose_is_read(fake_llm, client):  # noqa: F811
    fake_llm.script(Reply.text("判断如下：\n```json\n" + _answer(confidence=0.95) + "\n```\n以上。"))
    result = classify(UNSURE, client, MODEL)
    assert (result.label, result.confidence, result.source) == (EXECUTION, 0.95, "llm")


def test_verdict_inside_think_block_is_ignored(fake_llm, client):  # noqa: F811
    text = "<think>也许是 " + _answer(confidence=0.99) + " 吧</think>\n" + _answer("chat", 0.8, "用户在闲聊")
    fake_llm.script(Reply.text(text))
    result = classify(UNSURE, client, MODEL)
    assert (result.label, result.source, result.reason) == (CHAT, "llm", "用户在闲聊")


@pytest.mark.parametrize("text", [
    "好的，我觉得这是执行任务。",
    "",
    '{"label": "execution", "confidence": 0.9',
    '{"label": "execution", "confidence": "0.9", "reason": "文件任务"}',
    '{"label": "execution", "confidence": 0.9}',
    '{"label": "execution", "confidence": 0.9, "reason": "   "}',
    '{"label": "Execution", "confidence": 0.9, "reason": "文件任务"}',
    '{"label": "execution", "confidence": 1.5, "reason": "文件任务"}',
    '{"label": "execution", "confidence": true, "reason": "文件任务"}',
    '{"label": "execution", "confidence": NaN, "reason": "文件任务"}',
    '{"label": "execution", "label": "execution", "confidence": 0.9, "reason": "文件任务"}',
    '<think>{"label": "execution", "confidence": 0.9, "reason": "文件任务"}</think>',
    _answer() + "\n" + _answer("chat", 0.9, "闲聊"),
], ids=["prose", "empty", "truncated", "string-confidence", "missing-reason", "blank-reason", "label-case",
        "out-of-range", "bool-confidence", "nan", "duplicate-key", "only-in-think", "two-verdicts"])
def test_unusable_answers_fall_back_to_chat(fake_llm, client, text):  # noqa: F811
    fake_llm.script(Reply.text(text))
    result = classify(UNSURE, client, MODEL)
    assert (result.label, result.source, result.confidence) == (CHAT, "fallback", 0.0)
    assert "模型输出无法解析" in result.reason


@pytest.mark.parametrize("sentence", ["把这个文件夹里的图片复制一份", "今天天气怎么样", "打开微信", "读取 main.cpp", "  "])
def test_rule_decided_sentences_make_no_request(fake_llm, client, sentence):  # noqa: F811
    result = classify(sentence, client, MODEL)
    assert result.source in ("rules", "fallback")
    assert fake_llm.requests == []


def test_a_less_sure_rule_verdict_is_checked_by_the_model(fake_llm, client):  # noqa: F811
    fake_llm.script(Reply.text(_answer("chat", 0.7, "用户只是在询问")))
    result = classify("你能帮我把这个文件夹里的图片复制一份吗？", client, MODEL)
    assert (result.label, result.source) == (CHAT, "llm")
    assert len(fake_llm.requests) == 1


def test_no_client_falls_back_to_rules_and_chat():
    assert classify(UNSURE, None, MODEL).to_json()["source"] == "fallback"
    assert classify(UNSURE, None, MODEL).label == CHAT
    assert classify("把这个文件夹里的图片复制一份", None, MODEL).source == "rules"
    assert classify("你能帮我把这个文件夹里的图片复制一份吗？", None, MODEL).label == EXECUTION


def test_api_error_propagates(fake_llm, client):  # noqa: F811
    fake_llm.script(Reply.status(401, "invalid api key"))
    with pytest.raises(ModelAPIError) as caught:
        classify(UNSURE, client, MODEL)
    assert caught.value.status == 401


def test_long_sentence_is_cut_before_it_reaches_the_model(fake_llm, client):  # noqa: F811
    fake_llm.script(Reply.text(_answer("chat", 0.9, "太长的闲聊")))
    classify("聊" * 100_000, client, MODEL)
    sent = sum(len(m["content"]) for m in fake_llm.requests[0].messages)
    assert sent < MAX_INTENT_CHARS + 3_000


def test_interpret_answer_needs_no_server():
    assert interpret_answer(_answer(confidence=0.61)).label == EXECUTION
    assert interpret_answer(_answer(confidence=0.59)).source == "fallback"
