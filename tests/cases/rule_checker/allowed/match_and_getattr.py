from pathlib import Path


def describe(item):
    match item:
        case Path() if item.is_dir():
            return "folder"
        case Path(suffix=".txt"):
            return "text"
        case _:
            return getattr(item, "name", "unknown")


items = sorted(Path("input").iterdir(), key=lambda p: p.name.lower())
preview = (items[0].name[:50] + "...") if items else "..."
print(preview, [describe(p) for p in items])
