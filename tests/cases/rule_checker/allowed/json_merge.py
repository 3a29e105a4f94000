import json
from pathlib import Path

merged = []
for path in sorted(Path("input").glob("*.json")):
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        print(f"skip {path.name}: {error}")
        continue
    merged.extend(data if isinstance(data, list) else [data])
Path("output/merged.json").write_text(json.dumps(merged, ensure_ascii=False, indent=2), encoding="utf-8")
print(len(merged), "records")
