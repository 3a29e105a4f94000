import re
import sys
import textwrap
import unicodedata
from pathlib import Path

if hasattr(sys.stdout, "reconfigure"):
    sys.stdout.reconfigure(encoding="utf-8")

WORD = re.compile(r"\w+", re.UNICODE)
for path in Path("input").glob("**/*.txt"):
    text = unicodedata.normalize("NFC", path.read_text(encoding="utf-8", errors="replace"))
    words = WORD.findall(text)
    summary = textwrap.shorten(" ".join(words), width=80, placeholder="...")
    out = Path("output") / (path.stem + ".summary.txt")
    out.write_text(f"{len(words)} words\n{summary}\n", encoding="utf-8")
    print(f"{path.name}: {len(words)} words", file=sys.stderr)
sys.exit(0)
