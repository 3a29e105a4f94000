import os
import shutil

NAME_TEMPLATE = "{stem}_{number:03d}{suffix}"
total_bytes = 0
for number, name in enumerate(sorted(os.listdir("input")), start=1):
    stem, suffix = os.path.splitext(name)
    new_name = NAME_TEMPLATE.format(stem=stem, number=number, suffix=suffix)
    shutil.copyfile(os.path.join("input", name), os.path.join("output", new_name))
    total_bytes += os.path.getsize(os.path.join("input", name))
print("{:,} bytes in {} files".format(total_bytes, number if os.listdir("input") else 0))
print("done: %(count)d" % {"count": total_bytes})
