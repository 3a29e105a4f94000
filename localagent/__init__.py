"""LocalAgent: a safe local agent that chats or runs confirmed, sandboxed tasks in one workspace folder."""

__version__ = "0.1.0"
