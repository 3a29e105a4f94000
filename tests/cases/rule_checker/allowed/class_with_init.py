import logging
import traceback
from pathlib import Path

logging.basicConfig(filename="logs/task_run.log", level=logging.INFO)
log = logging.getLogger("task")


class CopyError(Exception):
    def __init__(self, path, reason):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class Copier:
    """Copies files; counts results."""

    def __init__(self, source, target):
        self.source = Path(source)
        self.target = Path(target)
        self.done = 0

    def copy_one(self, path):
        data = path.read_bytes()
        (self.target / path.name).write_bytes(data)
        self.done += 1


def main():
    copier = Copier("input", "output")
    for path in copier.source.iterdir():
        try:
            copier.copy_one(path)
        except OSError as error:
            log.warning("failed %s: %s", path, type(error).__name__)
            traceback.print_exc()
    log.info("done %d", copier.done)


if __name__ == "__main__":
    main()
