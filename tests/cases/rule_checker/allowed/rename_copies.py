import os
import shutil
from datetime import datetime

stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
os.makedirs("output", exist_ok=True)
for index, name in enumerate(sorted(os.listdir("input")), start=1):
    source = os.path.join("input", name)
    if not os.path.isfile(source):
        continue
    stem, ext = os.path.splitext(name)
    clean = stem.strip().replace(" ", "_").replace("\\", "/").split("/")[-1]
    new_name = f"{stamp}_{index:03d}_{clean}{ext.lower()}"
    shutil.copy2(source, os.path.join("output", new_name))
    print(f"{name!r} -> {new_name}")
