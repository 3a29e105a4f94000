"""The vocabulary of direct workspace requests (seed 001 §5, §9, §11, §12; issue 3 §4).

Holds the request value (:class:`WorkspaceRequest`, its :data:`KINDS`, :data:`KIND_ACTIONS` and the
refusal wordings), the builders, and the one ordered rule
table (:data:`RULES`, Chinese and English, first match wins: dangerous requests first, then the
specific forms before the general ones). Pure: no file system. Matching a sentence against the
table, and the screen of the words around it, is :func:`localagent.agent.workspace_requests.parse_request`,
which also re-exports the names here that were always importable from it. Cleaning a path or
ordinal phrase (and its readings: "文件.txt", "说明 文件.txt") is :mod:`localagent.agent.path_phrases`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from localagent.agent.path_phrases import (
    ANCHOR_PREFIX,
    GENERIC,
    READ_ONLY_KINDS,
    TAIL,
    is_path_text,
    new_name,
    read_path,
    unquote,
)

__all__ = ["BATCH_DELETE", "KINDS", "KIND_ACTIONS", "PERMANENT_DELETE", "RULES", "RUN_COMMAND", "WorkspaceRequest",
           "is_path_text"]

# Request kinds (the controller maps them to WorkspaceActionType).
KINDS = ("scan", "list", "search_files", "search_text", "read", "open", "reveal", "create_file",
         "create_directory", "write", "replace", "append", "copy", "move", "rename", "delete", "undo",
         "analyze", "refuse", "show_workspace", "open_workspace")

PERMANENT_DELETE = ("不允许永久删除文件，只能删除到回收站。",
                    "Permanent deletion is not allowed; files can only be deleted to the recycle bin.")
BATCH_DELETE = ("第一阶段不支持批量删除。", "Batch deletion is not supported in this phase.")
RUN_COMMAND = ("不允许执行系统命令或运行脚本（危险操作一律拒绝）。",
               "Running commands or scripts is not allowed (dangerous actions are always refused).")


@dataclass(frozen=True, kw_only=True)
class WorkspaceRequest:
    """One parsed workspace request.

    Attributes:
        kind: one of :data:`KINDS`.
        path: the subject path as typed (cleaned), ``""`` when an ordinal is used.
        ordinal: 1-based position in the last result list (negative from the end), or None.
        bare: ``path`` is a bare word or has spaces; valid only if the workspace has it (seed 001 §12).
        alternatives: every reading of the path phrase, preferred first (the whole phrase, then
            without a noun such as 文件/folder, then shorter word splits for read-only kinds); the
            controller uses the first that exists in the workspace, else ``path``.
        target: copy/move destination, or the new name of a rename.
        keyword: what to search for.
        content: new content (write), appended text (append) or replacement (replace).
        old_text: the text to replace (replace).
        scope: analyze scope: ``"project"``, ``"results"`` (these files) or ``"file"``.
        question: the sentence as asked (analyze).
        refusal: ``(zh, en)`` wording of a refused dangerous request.
        dangerous: the refused request is Dangerous (permanent delete, command, script).
        refused_type: the action type a refusal is reported as (``"delete_to_trash"`` …).
    """

    kind: str
    path: str = ""
    ordinal: int | None = None
    bare: bool = False
    alternatives: tuple[str, ...] = ()
    target: str = ""
    keyword: str = ""
    content: str = ""
    old_text: str = ""
    scope: str = ""
    question: str = ""
    refusal: tuple[str, str] | None = None
    dangerous: bool = False
    refused_type: str = "unknown"


#: kind → (action type value, risk) as seed 001 §5 defines them; "open" is decided by the target.
KIND_ACTIONS: dict[str, tuple[str, int]] = {
    "scan": ("scan", 0), "list": ("list_files", 0), "search_files": ("search_files", 0),
    "search_text": ("search_text", 0), "read": ("read_file", 0), "analyze": ("analyze", 0),
    "show_workspace": ("unknown", 0), "open_workspace": ("scan", 0), "open": ("open_file", 2),
    "reveal": ("reveal_in_explorer", 1), "create_file": ("create_file", 2),
    "create_directory": ("create_directory", 2), "copy": ("copy_file", 2), "write": ("write_file", 3),
    "replace": ("write_file", 3), "append": ("write_file", 3), "move": ("move_file", 3),
    "rename": ("rename_file", 3), "delete": ("delete_to_trash", 3), "undo": ("undo", 3), "refuse": ("unknown", 4),
}


# --- builders: (match, sentence) -> request or None ------------------------------------------------

Builder = Callable[[re.Match, str], "WorkspaceRequest | None"]


def _withread_path(kind: str) -> Builder:
    def build(match: re.Match, sentence: str) -> WorkspaceRequest | None:
        ref = read_path(match.group("p"), splits=kind in READ_ONLY_KINDS)
        if ref is None:
            return None
        return WorkspaceRequest(kind=kind, path=ref.path, ordinal=ref.ordinal, bare=ref.bare,
                                alternatives=ref.alternatives)
    return build


def _two_paths(kind: str) -> Builder:
    def build(match: re.Match, sentence: str) -> WorkspaceRequest | None:
        source, target = read_path(match.group("p")), read_path(match.group("t"))
        if source is None or (target is None and kind != "rename") or (target and target.ordinal is not None):
            return None
        if kind == "rename":
            name = new_name(match.group("t"))
            if name is None:
                return None
            return WorkspaceRequest(kind=kind, path=source.path, ordinal=source.ordinal, bare=source.bare,
                                    alternatives=source.alternatives, target=name)
        if target.bare and re.search(r"\s", target.path):
            return None  # a destination with spaces must be quoted: it need not exist yet
        return WorkspaceRequest(kind=kind, path=source.path, ordinal=source.ordinal, bare=source.bare,
                                alternatives=source.alternatives, target=target.path)
    return build


def _search(kind: str) -> Builder:
    def build(match: re.Match, sentence: str) -> WorkspaceRequest | None:
        keyword, quoted = unquote(match.group("k"))
        if not quoted:
            keyword = TAIL.sub("", ANCHOR_PREFIX.sub("", keyword)).strip()
            if re.search(r"\s", keyword) or (_WEB_WORDS.search(keyword) and not re.search(r"[./\\]", keyword)):
                return None
        if keyword.casefold() in GENERIC:
            return None
        return WorkspaceRequest(kind=kind, keyword=keyword)
    return build


def _fixed(kind: str) -> Builder:
    def build(match: re.Match, sentence: str) -> WorkspaceRequest:
        return WorkspaceRequest(kind=kind)
    return build


def _analyze(scope: str) -> Builder:
    def build(match: re.Match, sentence: str) -> WorkspaceRequest | None:
        if scope != "file":
            return WorkspaceRequest(kind="analyze", scope=scope, question=sentence)
        ref = read_path(match.group("p"))
        if ref is None or ref.bare:
            return None
        return WorkspaceRequest(kind="analyze", scope="file", path=ref.path, ordinal=ref.ordinal, question=sentence)
    return build


def _refuse(wording: tuple[str, str], *, dangerous: bool, refused_type: str) -> Builder:
    def build(match: re.Match, sentence: str) -> WorkspaceRequest:
        return WorkspaceRequest(kind="refuse", refusal=wording, dangerous=dangerous, refused_type=refused_type)
    return build


def _list(match: re.Match, sentence: str) -> WorkspaceRequest | None:
    where = (match.group("p") or "").strip()
    where = re.sub(r"(?:下|里|中)?的?(?:所有)?(?:文件|内容)$|\s+(?:files|contents)$", "", where).strip()
    if not where or _ROOT_WORDS.fullmatch(where):
        return WorkspaceRequest(kind="list", path=".")
    ref = read_path(where, splits=True)
    if ref is None:
        return None
    # the rule ate a trailing 文件夹/目录: "列出 新建文件夹" may name a folder called 新建文件夹
    glued = tuple(where + noun for noun in ("文件夹", "目录") if where + noun in sentence)
    return WorkspaceRequest(kind="list", path=ref.path, ordinal=ref.ordinal, bare=ref.bare,
                            alternatives=tuple(dict.fromkeys((*glued, *ref.alternatives))) if glued else ref.alternatives)


def _workspace(match: re.Match, sentence: str) -> WorkspaceRequest | None:
    where, _ = unquote(match.group("p"))
    return WorkspaceRequest(kind="open_workspace", path=where) if where else None


def _text_change(kind: str) -> Builder:
    def build(match: re.Match, sentence: str) -> WorkspaceRequest | None:
        ref = read_path(match.group("p"))
        if ref is None or ref.bare:
            return None
        content, _ = unquote(match.group("c"))
        if kind == "replace":
            old, _ = unquote(match.group("o"))
            return WorkspaceRequest(kind=kind, path=ref.path, ordinal=ref.ordinal, old_text=old, content=content)
        if kind == "create_file" and ref.ordinal is not None:
            return None
        return WorkspaceRequest(kind=kind, path=ref.path, ordinal=ref.ordinal, content=content)
    return build


def _new_folder(match: re.Match, sentence: str) -> WorkspaceRequest | None:
    ref = read_path(match.group("p"))
    if ref is None or ref.ordinal is not None:
        return None
    return WorkspaceRequest(kind="create_directory", path=ref.path)


def _created(match: re.Match, sentence: str) -> WorkspaceRequest | None:
    ref = read_path(match.group("p"))
    if ref is None or ref.ordinal is not None or ref.bare:
        return None
    kind = "create_directory" if ref.path.endswith(("/", "\\")) else "create_file"
    return WorkspaceRequest(kind=kind, path=ref.path)


# --- the table: (pattern, builder, matched on the raw sentence?) -----------------------------------

_WEB_WORDS = re.compile(r"最新|版本|新闻|天气|下载|网上|官网|价格|教程|怎么|如何|latest|version|news|weather|download",
                        re.I)
_ROOT_WORDS = re.compile(r"(?:所有|全部)?(?:的)?(?:文件)?|(?:这个|当前|整个)?(?:工作区|项目|文件夹|目录)(?:里|中|下)?的?(?:所有)?(?:文件)?"
                         r"|(?:all\s+)?(?:the\s+)?files|(?:the\s+)?(?:workspace|project|folder)(?:\s+files)?|\.", re.I)
_DEL = r"(?:删除|删掉|删了|删去|移到回收站|移入回收站|放进回收站|扔进回收站|扔到回收站)"
_SEARCH = r"(?:搜索|搜一下|搜|查找|查找一下|找一下|找找|找|寻找)(?:一下)?"
_AN = r"(?:总结|分析|概括|介绍|解释|说明)(?:一下)?"
_PROJECT = r"(?:这个|当前|该|本|整个)?(?:项目|工作区|仓库|代码库)"
_FILE_ROLE = r"(?:的?(?:作用|内容|功能|用途|用处|结构|架构))?(?:分别是什么|是什么)?"

_RULES: tuple[tuple[str, Builder, bool], ...] = (
    # Dangerous and batch requests: refused, never planned (seed 001 §2, §5, §8.3).
    (r".*(?:永久|彻底|直接|强制)(?:删除|删掉).*|.*(?:不进|不放|不经过|跳过|绕过)回收站.*|.*清空回收站.*|.*shift\s*\+\s*del.*"
     r"|.*permanently\s+(?:delete|remove|erase).*|.*(?:delete|remove)\s+.+\s+permanently.*|.*\brm\s+-[rf]+.*",
     _refuse(PERMANENT_DELETE, dangerous=True, refused_type="delete_to_trash"), False),
    (r".*(?:运行|执行|跑一下)(?:一下)?.*(?:命令|脚本|指令|\.(?:bat|cmd|ps1|sh|py|exe|vbs|js|msi)\b).*"
     r"|(?:run|execute|exec)\s+(?:the\s+|this\s+|a\s+)?(?:command|script|shell|program|\S+\.(?:bat|cmd|ps1|sh|py|exe|vbs|js)\b).*",
     _refuse(RUN_COMMAND, dangerous=True, refused_type="unknown"), False),
    (rf".*{_DEL}.*(?:所有|全部|这些|那些|多个|一批|\*).*|.*(?:所有|全部|这些|那些|多个|\*).*{_DEL}.*"
     rf"|{_DEL}\s*.+?\s*(?:和|与|及|、|,|，)\s*.+|(?:delete|remove|trash)\s+(?:all|every|these|those|multiple|\S*\*).*"
     r"|(?:delete|remove|trash)\s+\S+\s*(?:,|\band\b)\s*\S+",
     _refuse(BATCH_DELETE, dangerous=False, refused_type="delete_to_trash"), False),
    # The workspace itself (seed 001 §11: 打开工作区 / 当前工作区 / 扫描工作区).
    (r"(?:打开|选择|切换到?|使用)工作区\s*(?:为|到|[:：])?\s*(?P<p>.+)", _workspace, False),
    (r"(?:open|use|switch\s+to)\s+(?:the\s+)?workspace\s+(?P<p>.+)", _workspace, False),
    (r"(?:当前|现在的?)工作区(?:是(?:什么|哪个|哪里)?|在哪(?:里|儿)?)?|(?:what\s+is\s+)?(?:the\s+)?current\s+workspace",
     _fixed("show_workspace"), False),
    (r"(?:重新)?扫描(?:一下)?(?:当前|这个|整个)?(?:工作区|项目|文件夹|目录)?(?:的?文件)?"
     r"|(?:re)?scan(?:\s+(?:the|this))?(?:\s+(?:workspace|project|folder|files))?", _fixed("scan"), False),
    (r"(?:撤销|撤回)(?:一下)?(?:上一步|上一个操作|上次的?操作|刚才的?操作|最后一次操作|上一次修改)?"
     r"|undo(?:\s+(?:the\s+|that\s+)?(?:last|previous)?\s*(?:change|operation|action|step)?)?", _fixed("undo"), False),
    # Analysis (seed 001 §9).
    (rf"{_AN}{_PROJECT}(?:的?代码)?{_FILE_ROLE}|{_PROJECT}是(?:做)?(?:什么|干什么|干嘛)的", _analyze("project"), False),
    (r"(?:analy[sz]e|summari[sz]e|explain|describe)\s+(?:the|this|my)\s+(?:project|workspace|repo|repository|codebase)"
     r"(?:\s+structure)?|what\s+does\s+(?:this|the)\s+project\s+do", _analyze("project"), False),
    (rf"{_AN}(?:这些|这几个|上面的?|以上|刚才的?|搜索到的|找到的)(?:文件|结果){_FILE_ROLE}"
     r"|(?:summari[sz]e|analy[sz]e|explain|describe)\s+(?:these|those|the)\s+(?:files|results)"
     r"|what\s+do\s+(?:these|those)\s+files\s+do", _analyze("results"), False),
    (rf"{_AN}\s*(?P<p>.+?)\s*{_FILE_ROLE}|(?:summari[sz]e|analy[sz]e|explain)\s+(?P<p2>.+)",
     lambda m, s: _analyze("file")(_Groups.first(m), s), False),
    # Writes that carry content: matched on the raw sentence so the text is kept as typed.
    (r"在\s*(?P<p>\S+?)\s*(?:中|里|里面)?\s*[,，]?\s*(?:把|将)\s*(?P<o>.+?)\s*(?:替换|改)(?:为|成)\s*(?P<c>.+)",
     _text_change("replace"), True),
    (r"(?:把|将)\s*(?P<p>\S+?)\s*(?:中|里)的\s*(?P<o>.+?)\s*(?:替换|改)(?:为|成)\s*(?P<c>.+)", _text_change("replace"), True),
    (r"in\s+(?P<p>\S+?)\s*,?\s+replace\s+(?P<o>.+?)\s+with\s+(?P<c>.+)", _text_change("replace"), True),
    (r"replace\s+(?P<o>.+?)\s+with\s+(?P<c>.+?)\s+in\s+(?P<p>\S+)", _text_change("replace"), True),
    (r"在\s*(?P<p>\S+?)\s*的?(?:末尾|最后|后面|结尾)\s*(?:追加|添加|加上|写入)\s*[:：]?\s*(?P<c>.+)", _text_change("append"), True),
    (r"(?:append|add)\s+(?P<c>.+?)\s+to\s+(?:the\s+end\s+of\s+)?(?P<p>\S+)", _text_change("append"), True),
    (r"(?:修改|更改|改写|改|设置)\s*(?P<p>\S+?)\s*的?\s*内容\s*(?:为|成)\s*[:：]?\s*(?P<c>.+)", _text_change("write"), True),
    (r"(?:把|将)\s*(?P<p>\S+?)\s*的?\s*内容\s*(?:修改|改|更改|替换|设置|设|改写)\s*(?:为|成)\s*[:：]?\s*(?P<c>.+)",
     _text_change("write"), True),
    (r"(?:set|change|replace)\s+the\s+contents?\s+of\s+(?P<p>\S+)\s+(?:to|with)\s+(?P<c>.+)", _text_change("write"), True),
    (r"write\s+(?P<c>.+?)\s+(?:to|into)\s+(?P<p>\S+)", _text_change("write"), True),
    (r"(?:新建|创建|建立|建)(?:一个)?(?:新的)?(?:文本)?(?:文件(?!\.))?\s*(?P<p>\S+?)\s*[,，]?\s*内容(?:为|是)\s*[:：]?\s*(?P<c>.+)",
     _text_change("create_file"), True),
    (r"create\s+(?:a\s+)?(?:new\s+)?(?:file\s+)?(?P<p>\S+)\s+with\s+(?:the\s+)?(?:content|text)\s+(?P<c>.+)",
     _text_change("create_file"), True),
    # Delete to the recycle bin (before "移到…": "把 tmp.log 移到回收站" is a delete).
    (rf"{_DEL}(?:一下)?\s*(?P<p>.+)|(?:把|将)\s*(?P<p2>.+?)\s*{_DEL}|(?:delete|remove|trash)\s+(?P<p3>.+)",
     lambda m, s: _withread_path("delete")(_Groups.first(m), s), False),
    # Copy, move, rename (one file each; seed 001 §8.3).
    (r"(?:把|将)\s*(?P<p>.+?)\s*(?:复制|拷贝)(?:一份)?\s*(?:到|至|进)\s*(?P<t>.+?)", _two_paths("copy"), False),
    (r"(?:复制|拷贝)\s*(?P<p>.+?)\s*(?:到|至)\s*(?P<t>.+?)|copy\s+(?P<p2>.+?)\s+(?:to|into)\s+(?P<t2>.+)",
     lambda m, s: _two_paths("copy")(_Groups.first(m), s), False),
    (r"(?:把|将)\s*(?P<p>.+?)\s*(?:移动|移|挪|剪切)\s*(?:到|至|进)\s*(?P<t>.+?)", _two_paths("move"), False),
    (r"(?:移动|剪切)\s*(?P<p>.+?)\s*(?:到|至)\s*(?P<t>.+?)|move\s+(?P<p2>.+?)\s+(?:to|into)\s+(?P<t2>.+)",
     lambda m, s: _two_paths("move")(_Groups.first(m), s), False),
    (r"(?:把|将)\s*(?P<p>.+?)\s*的?(?:重命名|改名|命名|名字改|名称改|文件名改)\s*(?:为|成)\s*(?P<t>.+?)", _two_paths("rename"), False),
    (r"(?:重命名|改名)\s*(?P<p>.+?)\s*(?:为|成)\s*(?P<t>.+?)|rename\s+(?P<p2>.+?)\s+(?:to|as)\s+(?P<t2>.+)",
     lambda m, s: _two_paths("rename")(_Groups.first(m), s), False),
    # Create and delete.
    (r"(?:新建|创建|建立|建)(?:一个)?(?:新的)?(?:文件夹|目录)\s*(?P<p>.+)|(?:create|make)\s+(?:a\s+)?(?:new\s+)?(?:folder|directory)\s+(?P<p2>.+)"
     r"|mkdir\s+(?P<p3>.+)", lambda m, s: _new_folder(_Groups.first(m), s), False),
    (r"(?:新建|创建|建立|建)(?:一个)?(?:新的)?(?:文本)?(?:文件(?!\.))?\s*(?P<p>.+)|(?:create|make|touch)\s+(?:a\s+)?(?:new\s+)?(?:file\s+)?(?P<p2>.+)",
     lambda m, s: _created(_Groups.first(m), s), False),
    # Text search before name search: "找一下包含 X 的文件" (seed 001 §15).
    (rf"(?:{_SEARCH})?(?:所有)?(?:包含|含有|含|提到|引用|用到|使用了?)\s*(?P<k>.+?)\s*的(?:所有)?(?:文件|代码|地方|位置)",
     _search("search_text"), False),
    (r"哪些文件(?:包含|含有|用到|提到|引用)了?\s*(?P<k>.+)|(?:搜索|查找|搜)(?:文本|内容|代码|全文)\s*(?P<k2>.+)"
     r"|在(?:文件|代码|项目|工作区)(?:里|中|内)(?:搜索|查找|搜)\s*(?P<k3>.+)|grep\s+(?P<k4>.+)"
     r"|(?:find|search\s+for|list)\s+(?:all\s+)?files\s+(?:containing|that\s+contain|mentioning)\s+(?P<k5>.+)"
     r"|which\s+files\s+(?:contain|mention|use)\s+(?P<k6>.+)|search\s+(?:the\s+)?(?:text|contents?)\s+(?:for\s+)?(?P<k7>.+)",
     lambda m, s: _search("search_text")(_Groups.first(m), s), False),
    # Reveal, list, read, open, search by name (seed 001 §8.1, §8.2).
    (r"(?:显示|打开)\s*(?P<p>.+?)\s*的?所在(?:的)?(?:位置|文件夹|目录)|(?:定位|显示)(?:到)?\s*(?P<p2>.+?)\s*的位置"
     r"|在(?:文件夹|资源管理器|访达)中(?:显示|定位)\s*(?P<p3>.+)|reveal\s+(?P<p4>.+)"
     r"|show\s+(?P<p5>.+?)\s+in\s+(?:the\s+)?(?:folder|explorer|finder|file\s+manager)",
     lambda m, s: _withread_path("reveal")(_Groups.first(m), s), False),
    (r"(?:列出|列一下|罗列)\s*(?P<p>.*?)\s*(?:目录|文件夹)?|(?:list|ls)(?:\s+(?P<p2>.+))?"
     r"|(?:查看|显示)\s*(?P<p3>.+?)\s*(?:目录|文件夹)(?:里|下|中)?的?(?:文件|内容)?",
     lambda m, s: _list(_Groups.first(m), s), False),
    (r"(?:读取|读一下|读|查看|看看|看一下|阅读|显示)\s*(?P<p>.+?)\s*(?:的)?(?:内容|全文)?"
     r"|(?:read|cat|view|show)\s+(?:me\s+)?(?:the\s+contents?\s+of\s+)?(?P<p2>.+)",
     lambda m, s: _withread_path("read")(_Groups.first(m), s), False),
    (r"(?:打开|open)(?:一下)?\s*(?P<p>.+)", _withread_path("open"), False),
    (rf"{_SEARCH}\s*(?P<k>.+?)(?:\s*文件)?|(?:search(?:\s+for)?|find|look\s+for|locate)\s+(?P<k2>.+)",
     lambda m, s: _search("search_files")(_Groups.first(m), s), False),
)


class _Groups:
    """A match view for rules with alternatives: ``group("p")`` reads ``p``, ``p2``, ``p3``… whichever matched."""

    def __init__(self, match: re.Match, **values: str | None) -> None:
        self._match = match
        self._values = values

    @classmethod
    def first(cls, match: re.Match) -> _Groups:
        values: dict[str, str | None] = {}
        for name, value in match.groupdict().items():
            base = name.rstrip("0123456789")
            if value is not None and values.get(base) is None:
                values[base] = value
        return cls(match, **values)

    def group(self, name: str) -> str | None:
        return self._values.get(name) if name in self._values else self._match.group(name)


#: the rule table compiled: ``(pattern, builder, matched on the raw sentence?)`` in order.
RULES = tuple((re.compile(p, re.I | re.S), build, raw) for p, build, raw in _RULES)
