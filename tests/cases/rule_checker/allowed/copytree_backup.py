import shutil
from datetime import datetime, timezone
from pathlib import Path

base = Path(__file__).resolve().parent
moment = datetime.now(timezone.utc).replace(microsecond=0, tzinfo=None)
target = base / "output" / f"backup-{moment:%Y%m%d-%H%M%S}"
shutil.copytree(base / "input", target, dirs_exist_ok=True)
names = [p.name for p in target.rglob("*")]
names.remove(names[0]) if names else None
print(len(names), "entries copied to", target.relative_to(base))
