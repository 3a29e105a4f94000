import fnmatch
import glob
import os
import tarfile
import time

patterns = ["*.log", "*.txt"]
selected = [p for p in glob.glob(os.path.join("input", "*")) if any(fnmatch.fnmatch(p, pat) for pat in patterns)]
name = time.strftime("output/logs-%Y-%m-%d.tar.gz")
with tarfile.open(name, "w:gz") as bundle:
    for path in selected:
        bundle.add(path, arcname=os.path.basename(path))
print(f"{len(selected)} files -> {name}")
