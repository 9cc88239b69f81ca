"""A post-generation fix for openapi-python-client 0.29.1 (issue #1451, open): an operation
whose required body has several content types (`upload_asset`: multipart or JSON) is written
with `body: … | Unset = UNSET` but without importing `Unset`, so the module fails to import.
This adds `Unset` to that module's `...types` import. Remove it once the generator is fixed.

Usage (a post hook in config.yaml, run in the generated package): python import_unset.py DIR
"""

import pathlib
import re
import sys

IMPORT = re.compile(r"^from \.\.\.types import (.*)$", re.MULTILINE)

for module in pathlib.Path(sys.argv[1]).glob("api/*/*.py"):
    text = module.read_text()
    imported = IMPORT.search(text)
    if "| Unset" in text and imported and "Unset" not in imported.group(1).split(", "):
        fixed = f"from ...types import {imported.group(1)}, Unset"
        module.write_text(text[: imported.start()] + fixed + text[imported.end() :])
