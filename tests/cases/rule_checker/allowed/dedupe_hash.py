import hashlib
import os
import shutil

seen = {}
duplicates = 0
for folder, _dirs, files in os.walk("input"):
    for name in files:
        path = os.path.join(folder, name)
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(65536), b""):
                digest.update(block)
        key = digest.hexdigest()
        if key in seen:
            duplicates += 1
            continue
        seen[key] = path
        shutil.copy2(path, os.path.join("output", name))
print(f"unique {len(seen)}, duplicates {duplicates}")
