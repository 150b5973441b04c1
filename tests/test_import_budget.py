"""Start-up work that is put off until it is needed stays put off."""

from __future__ import annotations

import subprocess
import sys

_CHECK_DEFERRED = """
import pi.ai.types as types
classes = [c for c in vars(types).values() if isinstance(c, type)]
shapes = [c for c in classes if issubclass(c, types.PiModel) and c is not types.PiModel]
built = [c.__name__ for c in shapes if c.__pydantic_complete__]
assert len(shapes) > 20 and built == [], built
message = types.UserMessage(content="hi")
assert types.UserMessage.__pydantic_complete__ and message.to_json_dict()["content"] == "hi"
assert not types.ModelCompat.__pydantic_complete__
print("ok")
"""


def test_message_and_model_shapes_are_built_on_first_use() -> None:
    done = subprocess.run([sys.executable, "-c", _CHECK_DEFERRED], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"


_CHECK_TOOL_PARAMS = """
import pi.tools.bash, pi.tools.edit, pi.tools.read, pi.tools.write
from pi.tools.schema import ToolParams
models = [pi.tools.bash.BashParams, pi.tools.edit.EditParams, pi.tools.edit.ReplaceEdit,
          pi.tools.read.ReadParams, pi.tools.write.WriteParams]
built = [m.__name__ for m in [ToolParams, *models] if m.__pydantic_complete__]
assert built == [], built
assert pi.tools.read.ReadParams.model_validate({"path": "a", "offset": "2"}).offset == 2
assert pi.tools.read.ReadParams.__pydantic_complete__ and not pi.tools.write.WriteParams.__pydantic_complete__
print("ok")
"""


def test_tool_parameter_models_are_built_on_first_use() -> None:
    done = subprocess.run([sys.executable, "-c", _CHECK_TOOL_PARAMS], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"


_CHECK_COMPACTION_CONTROL = """
import sys
import pi.app.session_compaction
heavy = [m for m in ("pi.session.compaction", "pi.session.summarize", "pi.session.cut_point") if m in sys.modules]
assert heavy == [], heavy
from pi.session.compaction import CompactionCancelledError, CompactionError
from pi.session.compaction_errors import CompactionCancelledError as Cancelled, CompactionError as Error
assert (CompactionError, CompactionCancelledError) == (Error, Cancelled)
print("ok")
"""


def test_the_compaction_control_loads_without_the_summarizer() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CHECK_COMPACTION_CONTROL], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"
