"""Copy every image from input/ to output/ (originals untouched). Never calls subprocess or eval."""
import shutil
from pathlib import Path

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".gif", ".webp"}
source = Path("input")
target = Path("output")
target.mkdir(parents=True, exist_ok=True)
ok = failed = 0
for path in sorted(source.rglob("*")):
    if path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES:
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copy2(path, destination)
            ok += 1
        except OSError as error:
            failed += 1
            print(f"failed: {path}: {error}")
print(f"copied {ok}, failed {failed}")
