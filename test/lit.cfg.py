# -*- Python -*-
# lit's entry point for gptc's tests. From the build tree
# (build/test/lit.site.cfg.py holds the build's paths and loads this file)
# it loads lit.gptc.py, the configuration. From the source tree, as in
# LLVM (`lit test/Passes/Fusion`), the build's site file is not there: this
# file loads it from ./build, or from $GPTC_BUILD_DIR, which comes back here
# with the build's paths set.

import os

here = os.path.dirname(os.path.abspath(__file__))
if getattr(config, "gptc_obj_root", None) is None:
    build = os.environ.get("GPTC_BUILD_DIR") or os.path.join(
        os.path.dirname(here), "build")
    site = os.path.join(build, "test", "lit.site.cfg.py")
    if not os.path.exists(site):
        lit_config.fatal(
            f"{site} not found: build gptc first (bash scripts/setup.sh), or "
            "set GPTC_BUILD_DIR to its build directory")
    lit_config.load_config(config, site)
else:
    lit_config.load_config(config, os.path.join(here, "lit.gptc.py"))
