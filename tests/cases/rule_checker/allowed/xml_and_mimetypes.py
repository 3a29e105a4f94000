import mimetypes
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

counts = Counter()
root = ET.Element("files")
for path in Path("input").iterdir():
    kind, _encoding = mimetypes.guess_type(path.name)
    counts[kind or "unknown"] += 1
    ET.SubElement(root, "file", name=path.name, type=kind or "unknown")
ET.ElementTree(root).write("output/files.xml", encoding="utf-8", xml_declaration=True)
for kind, count in counts.most_common():
    print("%-30s %d" % (kind, count))
