import zipfile
from pathlib import Path

archive = Path("output") / "input_backup.zip"
archive.parent.mkdir(exist_ok=True)
with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
    for path in Path("input").rglob("*"):
        if path.is_file():
            bundle.write(path, arcname=path.relative_to("input").as_posix())
print("wrote", archive)
