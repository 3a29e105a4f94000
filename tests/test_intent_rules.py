"""The no-model intent fast path (issue 2 part 5; seed 000 意图识别; seed 001 §12 意图分发)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localagent.intent.labels import CHAT, EXECUTION, IntentResult
from localagent.intent.rules import (
    MAX_SCAN_CHARS,
    classify_by_rules,
    classify_without_model,
    normalize,
)

EXECUTION_SENTENCES = [
    # seed 000 acceptance and the brief's examples
    "把这个文件夹里的图片复制一份",
    "复制 input 里所有文件",
    "把文档都备份到 output",
    "搜索这个项目里的 main",
    "读取 main.cpp",
    "把 a.txt 复制到 docs",
    "把 old.md 重命名为 new.md",
    "删除 tmp.log",
    "分析这个项目",
    "打开第一个",
    "扫描工作区",
    "打开 docs",
    # seed 001 §12 and issue 3 §4
    "打开这个项目里的 docs",
    "搜索 README",
    "打开第二个",
    "读取最后一个",
    "总结这些文件",
    # more Chinese
    "帮我把这个文件夹里的照片按日期整理一下",
    "把 input 里的图片转换成 png",
    "压缩这个文件夹里的文档",
    "列出工作区里的所有 pdf",
    "把这个文件夹里的重复照片去重",
    "统计这个项目的代码行数",
    "把 report.docx 转成 pdf",
    "新建一个 notes.md",
    "把 data.csv 移动到 output",
    "查看 src 目录",
    "请帮我备份工作区里的文档",
    "把报告.docx复制到 output",
    "把 photos 文件夹里的照片按名字排序",
    "帮我分别复制这个文件夹里的图片和文档",
    # no spaces, punctuation, full width, traditional characters, typos that keep the key words
    "把a.txt复制到docs",
    "把这个文件夹里的图片复制一份！！！",
    "  复制 input 里所有文件。  ",
    "读取　ｍａｉｎ．ｃｐｐ",
    "把這個資料夾裡的圖片複製一份",
    "把这个文件夹里的图片复制一分",
    "把这个文件价里的图片复制一份",
    # English and mixed
    "copy all the images in this folder",
    "back up my photos in the workspace",
    "ｃｏｐｙ ａｌｌ ｔｈｅ ｉｍａｇｅｓ ｉｎ ｔｈｉｓ ｆｏｌｄｅｒ",
    "Copy ALL images In This Folder!!!",
    "rename old.md to new.md",
    "delete tmp.log",
    "read main.cpp",
    "search the project for TODO",
    "list all files in the input folder",
    "organize the photos in this folder by date",
    "open the second one",
    "Please compress the documents in the workspace.",
    "convert report.docx to pdf",
    "open README",
    "summarize these files",
    "帮我 copy 一下 input 里的 images",
    # polite questions that clearly ask me to act on this folder
    "你能帮我把这个文件夹里的图片复制一份吗？",
    "can you copy the images in this folder?",
]

CHAT_SENTENCES = [
    # seed 000 acceptance, seed 001 §12 traps, the brief's traps
    "今天天气怎么样",
    "打开微信",
    "搜索 Qt 最新版本",
    "打开文件夹",
    "帮我写一首关于文件的诗",
    "什么是文件夹",
    "how do I copy files in Windows?",
    "图片复制粘贴快捷键是什么",
    "删除微信聊天记录",
    "下载一个视频",
    "翻译这句话",
    "提醒我明天开会",
    # reminders win over workspace words
    "提醒我明天整理这个文件夹",
    "remind me to back up my photos in the workspace tomorrow",
    # greetings and small talk
    "你好",
    "谢谢！",
    "hello",
    "1+1等于几？",
    # weather
    "明天会下雨吗？",
    "what's the weather like today?",
    "帮我查一下北京的天气",
    # launching apps
    "open chrome",
    "打开浏览器",
    "启动 QQ",
    "打开记事本",
    "打开 word",
    "open settings",
    "打开设置",
    # the web
    "百度一下 Python 教程",
    "google the latest version of Qt",
    "最近有什么新闻",
    "搜索一下今天的新闻",
    "在线把 pdf 转成 word",
    "上传照片到网盘",
    "把文件发给张三",
    # writing and translation
    "把这句话翻译成英文",
    "给我讲个笑话",
    "帮我写一封请假邮件",
    "write a poem about folders",
    'translate "hello" into Chinese',
    # how-to and knowledge questions about files
    "如何批量重命名文件？",
    "为什么我的电脑文件夹打不开",
    "怎么压缩图片",
    "what is a file extension?",
    "how to rename files on mac",
    "复制粘贴的快捷键是什么",
    "文件和文件夹有什么区别",
    # places outside the workspace
    "清理电脑桌面",
    "删除 C 盘的临时文件",
    "整理一下我的桌面",
    # generic "open a folder" (seed 001 §12)
    "打开一个文件夹",
    "open a folder",
    "ＯＰＥＮ　ＦＯＬＤＥＲ",
]

UNDECIDED_SENTENCES = [
    "这个文件夹里有图片吗？",
    "整理照片",
    "复制所有图片",
    "把这个文件夹里的图片上传到网盘",
    "下载这个文件夹里的图片",
    "what is a workspace?",
    "怎么复制这个文件夹里的图片？",
    "写一个复制文件的 Python 脚本",
    "读取 Node.js 文档",
    "把这个问件夹里的图片复制一份",
    "coppy all images in this folder",
    "the second one",
    "我好无聊",
    "打开 foo",
    "把 README.md 翻译成英文",
    # negation, hypotheticals, narration and "how long" are not orders
    "不要删除这个文件夹里的文件",
    "别把这个文件夹里的图片删掉",
    "如果我把这个文件夹里的图片复制一份会怎样",
    "我昨天已经把这个文件夹里的图片复制了一份",
    "这个文件夹里的图片复制一份要多久",
    "don't delete tmp.log",
    "copy the images in this folder if they are jpg",
]


def test_the_table_is_large_enough():
    assert len(EXECUTION_SENTENCES) + len(CHAT_SENTENCES) + len(UNDECIDED_SENTENCES) >= 80
    assert len(set(EXECUTION_SENTENCES + CHAT_SENTENCES + UNDECIDED_SENTENCES)) == (
        len(EXECUTION_SENTENCES) + len(CHAT_SENTENCES) + len(UNDECIDED_SENTENCES))


@pytest.mark.parametrize("sentence", EXECUTION_SENTENCES)
def test_workspace_tasks_are_execution(sentence):
    result = classify_by_rules(sentence)
    assert result is not None, sentence
    assert (result.label, result.source) == (EXECUTION, "rules")
    assert result.confidence >= 0.8
    assert classify_without_model(sentence) == result


@pytest.mark.parametrize("sentence", CHAT_SENTENCES)
def test_chat_sentences_are_chat(sentence):
    result = classify_by_rules(sentence)
    assert result is not None, sentence
    assert (result.label, result.source) == (CHAT, "rules")


@pytest.mark.parametrize("sentence", UNDECIDED_SENTENCES)
def test_ambiguous_sentences_are_left_to_the_model(sentence):
    assert classify_by_rules(sentence) is None
    fallback = classify_without_model(sentence)
    assert (fallback.label, fallback.source, fallback.confidence) == (CHAT, "fallback", 0.0)
    assert "未配置模型" in fallback.reason


@pytest.mark.parametrize("sentence", CHAT_SENTENCES + UNDECIDED_SENTENCES)
def test_no_chat_sentence_is_ever_execution(sentence):
    for variant in (sentence, sentence.upper(), f"  {sentence}？", f"{sentence}!!!", f"请{sentence}"):
        result = classify_by_rules(variant)
        assert result is None or result.label == CHAT, variant
        assert classify_without_model(variant).label == CHAT, variant


def test_every_decision_has_a_chinese_reason():
    for sentence in EXECUTION_SENTENCES + CHAT_SENTENCES + UNDECIDED_SENTENCES:
        result = classify_without_model(sentence)
        assert any("\u4e00" <= ch <= "\u9fff" for ch in result.reason), sentence


def test_execution_reason_names_the_verb_and_the_target():
    result = classify_by_rules("把这个文件夹里的图片复制一份")
    assert "复制" in result.reason and "这个文件夹" in result.reason
    named = classify_by_rules("把a.txt复制到docs")
    assert "“a.txt”" in named.reason
    ordinal = classify_by_rules("打开第一个")
    assert "“第一个”" in ordinal.reason


def test_polite_question_is_less_confident_than_an_order():
    order = classify_by_rules("把这个文件夹里的图片复制一份")
    polite = classify_by_rules("你能帮我把这个文件夹里的图片复制一份吗？")
    assert polite.confidence < order.confidence


@pytest.mark.parametrize("blank", ["", "   ", "\n\t", "\u3000\u3000", "。。。"])
def test_empty_input_is_chat_fallback(blank):
    assert classify_by_rules(blank) is None
    result = classify_without_model(blank)
    assert result == IntentResult(label=CHAT, confidence=0.0, reason="输入为空，按对话处理", source="fallback")


def test_long_sentence_only_its_head_is_read():
    task = "把这个文件夹里的图片复制一份"
    assert classify_by_rules(task + "啊" * 100_000).label == EXECUTION
    assert classify_by_rules("啊" * 100_000 + task) is None
    assert len(normalize("x" * 100_000)) == MAX_SCAN_CHARS


def test_normalize_folds_width_case_and_script():
    assert normalize("  ＲＥＡＤ　Main．CPP！ ") == "read main.cpp"
    assert normalize("這個資料夾裡") == "这个资料夹里"
    assert normalize("有图片吗？") == "有图片吗?"


def test_to_json_has_the_stable_keys():
    result = classify_without_model("今天天气怎么样")
    assert result.to_json() == {"label": CHAT, "confidence": 0.9, "reason": result.reason, "source": "rules"}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_a_well_formed_answer(text):
    result = classify_by_rules(text)
    assert result is None or (result.label in (CHAT, EXECUTION) and 0.0 <= result.confidence <= 1.0
                              and result.source == "rules" and result.reason)
    assert classify_without_model(text).label in (CHAT, EXECUTION)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_a_reminder_is_never_execution(tail):
    assert classify_by_rules("提醒我" + tail).label == CHAT


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(EXECUTION_SENTENCES),
       st.sampled_from(["，然后上传到网盘", " and upload them to google drive", "，再发给张三", "，顺便看看天气",
                        " then download the latest version"]))
def test_an_online_or_outside_request_vetoes_execution(task, tail):
    result = classify_by_rules(task + tail)
    assert result is None or result.label == CHAT
