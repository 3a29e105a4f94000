"""The no-model fast path of intent classification (seed 000 "意图识别"; seed 001 §12).

:func:`classify_by_rules` decides only sentences that are unambiguous and returns
``None`` otherwise; then the intent model decides, or, with no key configured,
:func:`classify_without_model` answers chat. It never sends a chat sentence to
execution ("宁可少执行，不可误执行", seed 000): an execution verdict needs a file
verb (copy, back up, organize, rename, search, read, delete…) *and* a reference
to the workspace (this folder, ``input``, 工作区, 这个项目, a file name such as
``main.cpp`` or ``README``, or an ordinal such as "打开第一个" after a result list).
Veto tables — reminders, weather, app names, web/online words, places outside the
workspace, writing and translation, quoted or reported speech, how-to questions — turn
a sentence into chat, or into ``None`` when it also names something in the workspace
(seed 001 §12: "打开微信", "搜索 Qt 最新版本", "打开文件夹" are not workspace tasks).
Prompt injection ("忽略之前的指令", "ignore previous instructions") is chat even next
to a file name.

Public helpers shared with the direct-request parser (``agent/request_screen.py``), so
the tables live here only: :func:`chat_veto`, :func:`is_question`,
:func:`is_negated_or_hypothetical`, :func:`is_polite_request`.

Every table below is data; the decision order lives in :func:`_decide`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from localagent.intent.labels import CHAT, EXECUTION, SOURCE_RULES, IntentResult, chat_fallback

MAX_SCAN_CHARS = 2000
"""Only the first 2,000 characters of a sentence are looked at (a 100 KB sentence stays fast)."""

RULE_EXECUTION_CONFIDENCE = 0.9
POLITE_QUESTION_CONFIDENCE = 0.8
RULE_CHAT_CONFIDENCE = 0.9

_ASCII_BEFORE = r"(?<![0-9a-z_])"
_ASCII_AFTER = r"(?![0-9a-z_]|\.[0-9a-z])"


def _en(*words: str) -> str:
    """Join English alternatives, each bounded by non-ASCII-word characters (CJK neighbours are fine)."""
    return _ASCII_BEFORE + "(?:" + "|".join(words) + ")" + _ASCII_AFTER


def _any(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{part})" for part in parts))


# Traditional → simplified for the characters the tables use (typed input is often traditional).
_TRADITIONAL = str.maketrans(
    "這個夾複製圖檔資刪專錄讀尋備壓縮轉換裡裏幫開創檢視頻樂歸類單掃蒐於從將區試氣請麼嗎讓報輸數據項倉庫碼啟動聞網載線鬧鐘詩譯計統總結覽當稱鍵體設訊邊際",
    "这个夹复制图档资删专录读寻备压缩转换里里帮开创检视频乐归类单扫搜于从将区试气请么吗让报输数据项仓库码启动闻网载线闹钟诗译计统总结览当称键体设讯边际",
)

# --- Verbs: something to do to files (seed 000 execution; seed 001 tools) -------------------------
_VERB = _any(
    "复制|拷贝|备份|整理|归类|归档|分类|重命名|改名|转换|转成|转为|转化|排序|去重|压缩|打包|解压|列出|列一下|罗列"
    "|查找|搜索|搜一下|找出|找一下|找到|寻找|读取|读一下|阅读|查看|看看|看一下|打开|创建|新建|建一个|移动|挪到|剪切"
    "|删除|删掉|清理|清空|扫描|分析|统计|汇总|总结|概括|合并|拆分|提取|导出|修改|编辑|写入|替换|保存|生成|检查|对比|比较"
    "|展示|显示|收集",
    _en("copy", "copies", "duplicate", "back ?up", "backup", "organi[sz]e", "sort", "rename", "convert", "dedupe",
        "deduplicate", "compress", "zip", "unzip", "extract", "list", "search", "find", "grep", "look for", "locate",
        "read", "open", "show", "view", "display", "create", "make", "move", "delete", "remove", "clean ?up", "scan",
        "analy[sz]e", "summari[sz]e", "count", "merge", "split", "export", "edit", "modify", "replace", "write",
        "save", "generate", "check", "compare", "archive", "resize", "group", "classify", "categori[sz]e", "collect"),
)

# --- Objects: kinds of files (used for reasons and to keep file how-to questions undecided) -----------
_OBJECT = _any(
    "文件|图片|照片|相片|图像|截图|文档|视频|音频|音乐|歌曲|表格|文本|源码|日志",
    _en("files?", "images?", "photos?", "pictures?", "pics", "documents?", "docs", "videos?", "audio", "music",
        "songs?", "spreadsheets?", "pdfs?", "logs?"),
)

# --- Workspace references --------------------------------------------------------------------------
_KNOWN_DIRS = "docs?|src|source|input|output|logs|tests?|assets|images|img|data|scripts|examples|include|lib|bin|build"
_ANCHOR = _any(
    "(?:这个|该|此|本|当前)(?:文件夹|资料夹|目录)|(?:文件夹|资料夹|目录)(?:里|中|内|下)"
    "|工作区|工作目录|工作空间|这个项目|该项目|此项目|本项目|当前项目|项目(?:里|中|内|下|的(?:代码|文件|结构|目录|源码))"
    "|这个仓库|代码库|这些文件|这些图片|这些照片|这些文档|这个文件|该文件|输入文件夹|输出文件夹|输入目录|输出目录",
    _en("(?:this|that|the|my|our|current|working|input|output) (?:folder|directory|dir|workspace|project|repo|repository)",
        "workspace", "(?:these|those) (?:files|images|photos|pictures|documents)", "this file",
        "(?:in|from|into|to|inside|under) (?:the |my )?(?:input|output)", "(?:input|output)/"),
    _ASCII_BEFORE + "(?:" + _KNOWN_DIRS + r")(?:/|\s*(?:里|中|内|下|目录|文件夹| folder| directory))",
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_CJK_ANCHOR = re.compile(_en("input", "output", "logs"))  # bare folder names inside a Chinese sentence
_FILE_EXTS = (
    "txt|md|markdown|rst|py|pyw|ipynb|c|h|cc|cpp|cxx|hpp|cs|java|kt|go|rs|rb|php|js|jsx|ts|tsx|vue|html?|css|scss"
    "|json|jsonl|ya?ml|toml|ini|cfg|conf|xml|csv|tsv|sql|log|sh|bat|ps1|docx?|xlsx?|pptx?|pdf|odt|rtf|epub|png"
    "|jpe?g|gif|bmp|webp|svg|ico|tiff?|heic|mp3|wav|flac|aac|ogg|m4a|mp4|mov|avi|mkv|wmv|webm|zip|tar|gz|tgz|bz2"
    "|xz|7z|rar|db|sqlite|lock|cmake|tex|srt|exe|dll"
)
_FILE_NAMES = (  # tried in order: ASCII names, then names with Chinese characters, then well-known bare names
    re.compile(r"(?<![0-9a-z_\-.])[0-9a-z_\-][0-9a-z_\-.]*\.(?:" + _FILE_EXTS + r")(?![0-9a-z_])"),
    re.compile(r"[\u4e00-\u9fff][\u4e00-\u9fff0-9a-z_\-]{0,19}\.(?:" + _FILE_EXTS + r")(?![0-9a-z_])"),
    _any(_en("readme", "license", "makefile", "dockerfile", "changelog"),
         _ASCII_BEFORE + r"\.(?:gitignore|env)(?![0-9a-z_])"),
)
_NOT_FILE_NAMES = re.compile(_en(r"(?:node|vue|next|nuxt|react|three|d3|chart|express|angular)\.js"))
_ORDINAL = _any(
    "(?:打开|读取|查看|看看|删除|复制|移动|重命名)(?:一下)?\\s*(第[一二三四五六七八九十两0-9]+(?:个|项|条)|最后一个|倒数第[一二三0-9]+个|上一个)",
    _en("(?:open|read|show|view|delete|copy|move) ((?:the )?(?:first|second|third|fourth|fifth|last|next|previous) "
        "(?:one|file|result|item))"),
)
_OPEN_DIR = re.compile(r"(?:打开|进入|查看|列出|" + _en("open", "list") + r")\s*(?:the )?(" + _KNOWN_DIRS + ")"
                       r"(?:/|\s*(?:folder|directory|目录|文件夹))?$")

# --- Chat signals ----------------------------------------------------------------------------------
_REMINDER = _any("提醒|闹钟|日程|备忘", _en("remind me", "reminder", "alarm", "set a timer"))
_GENERIC_OPEN = re.compile(r"^(?:请|帮我|麻烦)?(?:打开|open)\s*(?:一个|a |the )?\s*"
                           r"(?:文件夹|目录|文件|资源管理器|文件管理器|folder|directory|file|file explorer|explorer|finder)$")
_VETOES: tuple[tuple[re.Pattern[str], str], ...] = (
    (_any("天气|气温|下雨|下雪|刮风|雾霾", _en("weather", "forecast")), "这是天气问答，不涉及工作区里的文件"),
    (_any("微信|钉钉|飞书|抖音|快手|b站|淘宝|京东|支付宝|网易云|微博|腾讯会议|爱奇艺|优酷",
          _en("qq", "wechat", "bilibili", "steam", "spotify", "telegram", "discord", "whatsapp", "slack", "zoom",
              "youtube", "tiktok")), "提到了应用程序“{hit}”，这不是对工作区文件的操作"),
    (_any("(?:打开|启动|运行|开启|关闭|退出)\\s*(?:浏览器|记事本|计算器|控制面板|设置|任务管理器|终端|命令行|相机|" + _en(
        "browser", "chrome", "firefox", "edge", "safari", "word", "excel", "ppt", "powerpoint", "notepad", "calculator",
        "terminal", "cmd", "powershell", "vs ?code", "photoshop", "outlook", "settings") + ")",
          _en("open", "launch", "start", "run", "close", "quit") + r"\s*(?:the )?" + _en(
        "browser", "chrome", "firefox", "edge", "safari", "word", "excel", "powerpoint", "notepad", "calculator",
        "terminal", "cmd", "powershell", "vs ?code", "photoshop", "outlook", "settings", "app", "application")),
     "这是启动应用程序的请求（“{hit}”），不是对工作区文件的操作"),
    (_any("最新版|新闻|网上|上网|联网|百度|谷歌|必应|下载|在线|官网|网站|网页|网址|股价|汇率|热搜|知乎|上传|网盘|云盘|发送|发给|分享",
          _en("google", "bing", "internet", "online", "website", "web search", "search the web", "on the web",
              "download", "latest version", "news", "stock price", "upload", "send", "share", "email"),
          r"https?://|www\."), "需要联网或向外发送（“{hit}”），LocalAgent 的执行任务不联网"),
    (_any("电脑上|电脑里|桌面|[c-z] ?盘|系统盘|注册表|回收站|手机|聊天记录",
          _en("desktop", "my computer", "registry", "recycle bin", "c:"), r"[a-z]:\\"),
     "涉及工作区以外的位置（“{hit}”），不是工作区任务"),
    (_any("翻译|译成|写一首|写首|诗|作文|写一篇|文章|讲个|笑话|故事|邮件|歌词|对联|这句话|这段话|这段文字|这句英文|这句中文",
          _en("translate", "poem", "joke", "story", "essay", "lyrics", "this sentence", "this phrase", "paraphrase",
              "rephrase")), "这是写作或翻译类的对话请求（“{hit}”）"),
    # Quoted or reported speech is content, not an order to LocalAgent ("我朋友说：删除 a.txt").
    (_any(r"(?:说|讲|写道|写着|问|问我|告诉我|原话|原文|引用|消息|短信|评论)\s*[:：“\"「『]",
          _en("said", "says", "say", "wrote", "writes", "asked", "told me", "quote", "message") + r"\s*[:“\"]"),
     "这是引用或转述的一段话（“{hit}”），其中的内容不是给我的指令"),
    (re.compile(r"^(?:你好|您好|嗨|哈喽|谢谢|多谢|早上好|晚上好|再见|" + _en("hi", "hello", "hey", "thanks", "thank you",
                                                                       "bye", "good morning") + r")\W*$"),
     "这是问候或寒暄"),
)
# Prompt injection: an order to drop earlier instructions or rules is chat, even next to a file name.
_INJECTION = _any(
    "(?:忽略|无视|忘记|忘掉|不要理会|不用理会|跳过|绕过)掉?(?:你|之前|以上|上面|上述|前面|先前|此前|所有|全部|一切|系统|的){1,4}"
    "(?:指令|指示|提示词?|规则|要求|设定|限制|安全)",
    "系统提示词?|越狱|开发者模式|你现在是",
    _en(r"(?:ignore|disregard|forget|override|bypass) (?:(?:all|any|of|the|your|my|these|those) )*"
        r"(?:(?:previous|prior|above|earlier|preceding|system|safety) )?"
        r"(?:instructions?|prompts?|rules?|messages?|guidelines?)",
        r"(?:ignore|disregard|forget) (?:(?:all|everything|the) )*(?:above|previous|prior)",
        "system prompt", "jailbreak", "developer mode", "you are now"))
_INJECTION_REASON = "包含要求忽略既有指令或规则的话（“{hit}”），按对话处理，不执行"
_HOW_TO = _any(
    "怎么|怎样|如何|咋|为什么|为何|为啥|什么是|是什么|是啥|啥是|什么叫|什么意思|快捷键|教程|区别|原理|有什么用|用什么"
    "|多久|多少|多长时间|会怎样",
    _en("how (?:do|does|did|can|could|should|would|to|much|many)", "what (?:is|are|was|does|do)", "what's", "why",
        "shortcuts?", "tutorial", "difference between", "meaning of"),
)
_QUESTION = _any(r"\?$", "(?:吗|呢|么|嘛)$", "能否|是否|可否|有没有|是不是|能不能|可不可以|可以不可以|要不要|该不该|行不行"
                 "|好不好|对不对|会不会|请问|了没有?$",
                 "^" + _en("is", "are", "can", "could", "would", "will", "do", "does", "did", "should", "what", "how",
                           "why", "where", "when", "which", "who"))
# Negation, hypotheticals and narration: "不要删除…", "如果我把…", "我昨天已经复制了…" are not orders.
_NEGATION = ("不要|不用|无需|不需要|不必|千万别|不想|不准|不许|禁止|请勿|切勿|勿(?=删|动|改|移|碰)"
             "|不(?=删|移动|移到|复制|拷贝|重命名|改名|写入|新建|创建|清空|覆盖|替换|追加)"
             "|(?<![分区类特识级性鉴告离])别(?:把|再|去|动|删|复制|碰|改|移|重命名|新建|创建|写)")
_CONDITIONAL = "如果|假如|假设|要是|万一|若是|倘若|的话|会怎样|会怎么样|会发生什么"
_NEGATION_EN = ("don't", "dont", "do not", "never", "not", "no need to", "stop")
_CONDITIONAL_EN = ("if", "suppose", "supposing", "what if", "in case", "unless", "would happen")
_NEGATED_OR_HYPOTHETICAL = _any(_NEGATION, _CONDITIONAL, _en(*_NEGATION_EN, *_CONDITIONAL_EN))
_HEDGE = _any(_NEGATION, _CONDITIONAL, "昨天|刚才|刚刚|已经|之前|上次|曾经",
              _en(*_NEGATION_EN, *_CONDITIONAL_EN, "i (?:already|just)", "yesterday"))
_REQUEST = _any("帮我|帮忙|请(?!问)|麻烦|劳驾|你能|你可以|能不能帮|能否帮|可以帮",
                _en("can you", "could you", "would you", "will you", "please", "help me", "i want you to",
                    "i need you to"))


@dataclass(frozen=True)
class _Features:
    verb: str | None
    ref: str | None
    obj: str | None
    question: bool
    how_to: bool
    request: bool
    hedged: bool


def normalize(sentence: str) -> str:
    """Return the text the rules look at: NFKC, casefolded, simplified, whitespace collapsed.

    Args:
        sentence: the user's sentence (any length; only the first :data:`MAX_SCAN_CHARS`
            characters are used).

    Returns:
        The normalized text with trailing full stops and exclamation marks removed
        (a trailing ``?`` stays: it marks a question). Full-width forms become ASCII.
    """
    text = unicodedata.normalize("NFKC", sentence[:MAX_SCAN_CHARS]).casefold().translate(_TRADITIONAL)
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"[\s.!。~…,，;；、]+$", "", text)


def _hit(pattern: re.Pattern[str], text: str) -> str | None:
    """Return the first captured group of the first match (or the whole match), stripped; None if no match."""
    found = pattern.search(text)
    if found is None:
        return None
    return next((group for group in found.groups() if group), found.group(0)).strip()


def _file_name(text: str) -> str | None:
    cleaned = _NOT_FILE_NAMES.sub(" ", text)
    return next((hit for pattern in _FILE_NAMES if (hit := _hit(pattern, cleaned))), None)


def _workspace_ref(text: str) -> str | None:
    """Return the words that point into the workspace (folder, project, file name, ordinal), if any."""
    for found in (_hit(_ANCHOR, text), _file_name(text), _hit(_ORDINAL, text), _hit(_OPEN_DIR, text)):
        if found:
            return found
    if _CJK.search(text):
        return _hit(_CJK_ANCHOR, text)
    return None


def _features(text: str) -> _Features:
    return _Features(verb=_hit(_VERB, text), ref=_workspace_ref(text), obj=_hit(_OBJECT, text),
                     question=_QUESTION.search(text) is not None, how_to=_HOW_TO.search(text) is not None,
                     request=_REQUEST.search(text) is not None, hedged=_HEDGE.search(text) is not None)


def _chat(reason: str) -> IntentResult:
    return IntentResult(label=CHAT, confidence=RULE_CHAT_CONFIDENCE, reason=reason, source=SOURCE_RULES,
                        reason_en="Chat or a question, not an action on the workspace's files")


def _execution(features: _Features) -> IntentResult:
    if features.question:
        reason = f"以请求的语气要求我对“{features.ref}”执行“{features.verb}”，是对工作区文件的执行任务"
        return IntentResult(label=EXECUTION, confidence=POLITE_QUESTION_CONFIDENCE, reason=reason, source=SOURCE_RULES,
                            reason_en=f"A polite request to {features.verb} “{features.ref}”: a task on workspace files")
    reason = f"要求对工作区中的“{features.ref}”执行“{features.verb}”操作，是对工作区文件的执行任务"
    return IntentResult(label=EXECUTION, confidence=RULE_EXECUTION_CONFIDENCE, reason=reason, source=SOURCE_RULES,
                        reason_en=f"Asks to {features.verb} “{features.ref}” in the workspace: a task on workspace files")


def chat_veto(sentence: str) -> str | None:
    """Return why a sentence is chat whatever file words it holds, or None (seed 001 §12 意图分发).

    The veto tables: weather, app names and launching apps, online or sending words,
    places outside the workspace, writing and translation ("把这句话翻译成英文：…"),
    quoted or reported speech ("我朋友说：…"), greetings, and prompt injection
    ("忽略之前的指令", "ignore previous instructions"). The direct-request parser
    (``agent/workspace_requests.py``) uses this same table.

    Args:
        sentence: any text; it is normalized here (NFKC, casefold, simplified
            characters; only the first :data:`MAX_SCAN_CHARS` characters are looked at).

    Returns:
        The Chinese reason naming the word that matched, or None when no veto applies.
    """
    return _veto(normalize(sentence))


def is_question(sentence: str) -> bool:
    """Return True if a sentence is put as a question (seed 000 "宁可少执行，不可误执行").

    A trailing ``?``/``？``, 吗/呢/么/嘛 at the end, 能否/是否/能不能/要不要/请问…, an English
    question word first ("should I…", "can you…"), or a how-to/why question (如何, 为什么,
    会怎样, "how to", "what is").

    Args:
        sentence: any text (normalized here).

    Returns:
        True for a question form, polite requests such as "你能帮我…吗" included.
    """
    text = normalize(sentence)
    return _QUESTION.search(text) is not None or _HOW_TO.search(text) is not None


def is_polite_request(sentence: str) -> bool:
    """Return True if a sentence asks *me* to act: 帮我, 请, 麻烦, 你能, "can you", "please" …

    Args:
        sentence: any text (normalized here).

    Returns:
        True when a request marker is present ("请问" is a question, not a request).
    """
    return _REQUEST.search(normalize(sentence)) is not None


def is_negated_or_hypothetical(sentence: str) -> bool:
    """Return True if a sentence negates or supposes its action: "不要删除…", "如果删除…会怎样", "don't…".

    Narration words (昨天, 刚才, 已经) are not counted here: "撤销刚才的操作" is an order.

    Args:
        sentence: any text (normalized here).

    Returns:
        True when a negation or a conditional word is present.
    """
    return _NEGATED_OR_HYPOTHETICAL.search(normalize(sentence)) is not None


def _veto(text: str) -> str | None:
    """Return the Chinese reason of the first chat veto that matches normalized ``text``, if any."""
    for pattern, reason in ((_INJECTION, _INJECTION_REASON), *_VETOES):
        hit = _hit(pattern, text)
        if hit is not None:
            return reason.format(hit=hit)
    return None


def _decide(text: str) -> IntentResult | None:
    """Apply the decision order: injection → reminder → vetoes → generic open → how-to → verb × workspace → plain question."""
    injection = _hit(_INJECTION, text)
    if injection is not None:
        return _chat(_INJECTION_REASON.format(hit=injection))
    if _REMINDER.search(text):
        return _chat("这是提醒或日程请求，不是对工作区文件的操作")
    features = _features(text)
    veto = _veto(text)
    if veto is not None:
        return None if features.ref else _chat(veto)
    if _GENERIC_OPEN.search(text):
        return _chat("“打开文件夹”这类泛指请求没有指明工作区里的位置，按对话处理")
    if features.how_to:
        return None if features.ref else _chat("这是询问方法或知识的问题，不是要我操作工作区里的文件")
    if features.verb and features.ref:
        if features.hedged or (features.question and not features.request):
            return None
        return _execution(features)
    if features.question and not (features.verb or features.obj or features.ref):
        return _chat("这是一个提问，没有涉及工作区里的文件")
    return None


def classify_by_rules(sentence: str) -> IntentResult | None:
    """Decide an unambiguous sentence without a model (seed 000 意图识别; seed 001 §12 意图分发).

    Args:
        sentence: the user's sentence, any language mix and length; only the first
            :data:`MAX_SCAN_CHARS` characters are examined.

    Returns:
        An :class:`IntentResult` with ``source="rules"`` (execution at 0.9, or 0.8 for
        a polite question such as "你能帮我把这个文件夹里的图片复制一份吗"; chat at 0.9),
        or ``None`` when the rules are unsure — including for an empty sentence. A
        chat sentence is never labelled execution: vetoes win over file words.
    """
    text = normalize(sentence)
    if not text:
        return None
    return _decide(text)


def classify_without_model(sentence: str) -> IntentResult:
    """Classify with the rules alone, as when no model key is configured (issue 2 part 5).

    Args:
        sentence: the user's sentence.

    Returns:
        The rules' decision, or chat with ``source="fallback"`` and confidence 0.0
        when the sentence is empty or the rules are unsure.
    """
    if not normalize(sentence):
        return chat_fallback("输入为空，按对话处理")
    decided = classify_by_rules(sentence)
    if decided is not None:
        return decided
    return chat_fallback("未配置模型，规则无法确定这是对工作区文件的执行任务，按对话处理")
