"""`python -m localagent` is the same as the `localagent` console script."""

from localagent.ui.cli import main

raise SystemExit(main())
