"""Every write to the database goes through ``games/services/`` (docs/architecture.md).

Each module of ``games/`` outside the services (the views, the websocket consumer, the jobs,
and every layer and kernel module in between) is parsed, and a call that writes a model or a
queryset itself fails here with its file and line. Which calls are writes, told apart from
their namesakes:

- ``create``, ``get_or_create``, ``update_or_create``, ``bulk_*`` (and their async ``a...``
  forms): always; nothing else the site calls is named so.
- ``save()``: without positional arguments (``Model.save`` takes keywords only, a file
  storage's ``save(name, content)`` is no model), unless ``commit=False`` (a model form's
  ``save`` that only builds the instance).
- ``delete()``: without positional arguments (``Model.delete``, ``QuerySet.delete``; a
  cache's ``delete(key)`` names its key).
- ``update(...)``: with keyword arguments only (``QuerySet.update``; a dict's or a set's
  ``update`` takes a mapping or an iterable), unless it is called on a name known to hold a
  dict in that function: bound to a dict display, a comprehension or ``dict(...)``,
  annotated as a dict or a mapping, or the ``**kwargs`` parameter.

``accounts`` is left out: its own app, below ``games`` (it may not import its services),
whose views save the player's own profile and preferences through its forms.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"

ALWAYS = {"create", "get_or_create", "update_or_create"}
DICT_CALLS = {"dict", "defaultdict", "OrderedDict", "Counter"}
DICT_TYPES = ("dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "OrderedDict")
# The services write; the rules and the bots cannot (no Django there: import-linter's contracts).
SKIPPED = {"services", "migrations", "rules", "bots"}
# What Django's async forms (``acreate``, ``aupdate`` ...) are the async forms of.
WRITES_BY_NAME = ALWAYS | {"save", "delete", "update", "bulk_create", "bulk_update"}


def _method(name: str) -> str:
    """``acreate`` -> ``create``: Django's async forms of the same writes."""
    return name[1:] if name.startswith("a") and name[1:] in WRITES_BY_NAME else name


def _is_dict_value(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict | ast.DictComp):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in DICT_CALLS
    )


def _is_dict_type(annotation: ast.expr | None) -> bool:
    return annotation is not None and ast.unparse(annotation).startswith(DICT_TYPES)


def _dict_names(scope: ast.AST) -> set[str]:
    """The names that hold a dict in this function (or module), its nested ones included."""
    names: set[str] = set()
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        arguments = scope.args
        every = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
        names |= {a.arg for a in every if _is_dict_type(a.annotation)}
        if arguments.kwarg is not None:
            names.add(arguments.kwarg.arg)
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and _is_dict_value(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and (_is_dict_type(node.annotation) or _is_dict_value(node.value))
        ):
            names.add(node.target.id)
    return names


def _is_write(call: ast.Call, dicts: set[str]) -> bool:
    if not isinstance(call.func, ast.Attribute):
        return False
    method = _method(call.func.attr)
    if method in ALWAYS or method.startswith("bulk_"):
        return True
    if method == "save":
        committed = not any(
            k.arg == "commit" and isinstance(k.value, ast.Constant) and k.value.value is False
            for k in call.keywords
        )
        return not call.args and committed
    if method == "delete":
        return not call.args
    if method == "update":
        receiver = call.func.value
        on_dict = isinstance(receiver, ast.Name) and receiver.id in dicts
        return not call.args and bool(call.keywords) and not on_dict
    return False


def model_writes(source: str) -> Iterator[tuple[int, str]]:
    """The line and the text of each call in ``source`` that writes a model or queryset."""
    tree = ast.parse(source)

    def visit(node: ast.AST, dicts: set[str]) -> Iterator[tuple[int, str]]:
        for child in ast.iter_child_nodes(node):
            inner = dicts
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = dicts | _dict_names(child)
            if isinstance(child, ast.Call) and _is_write(child, inner):
                yield child.lineno, ast.unparse(child)
            yield from visit(child, inner)

    module_dicts = {
        name
        for statement in tree.body
        if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for name in _dict_names(statement)
    }
    yield from visit(tree, module_dicts)


def writes_outside_services(package: Path, root: Path) -> list[str]:
    """``path:line: call`` for every write in ``package`` outside its ``services/``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        parts = path.relative_to(package).parts
        if parts[0] in SKIPPED:
            continue
        for line, call in model_writes(path.read_text()):
            found.append(f"{relative}:{line}: {call}")
    return found


def test_no_module_outside_the_services_writes_a_model_itself():
    """Views, the consumer, the jobs and the layers between call a service for every write."""
    found = writes_outside_services(GAMES, ROOT)
    assert not found, "a write outside games/services/ (call a service):\n" + "\n".join(found)


def test_community_writes_only_in_its_services_too():
    """The apps above games keep the rule (the chat's views, socket handlers and pages)."""
    found = writes_outside_services(ROOT / "community", ROOT)
    assert not found, "a write outside community/services/:\n" + "\n".join(found)


def test_the_check_reaches_the_views_the_consumer_and_the_jobs():
    """It reads what it is meant to: a service's own writes are found where it looks."""
    scanned = {p.relative_to(GAMES).parts[0] for p in GAMES.rglob("*.py")}
    assert {"views", "live", "jobs", "services"} <= scanned
    services = [
        line
        for path in (GAMES / "services").glob("*.py")
        for line in model_writes(path.read_text())
    ]
    assert len(services) > 10


WRITES = """
    from games.models import Reminder, Seat, Table

    def view(request, table, form, seat, user):
        seat.save()  # caught
        seat.save(update_fields=["seen_at"])  # caught
        form.save()  # caught
        Table.objects.create(game="slide")  # caught
        table.seats.create(position=1)  # caught
        Seat.objects.filter(table=table).update(seen_at=None)  # caught
        Seat.objects.update(seen_at=None)  # caught
        table.seats.update(seen_at=None)  # caught
        waiting = Seat.objects.filter(is_waiting=True)
        waiting.update(**{"seen_at": None})  # caught
        seat.delete()  # caught
        table.seats.all().delete()  # caught
        Reminder.objects.get_or_create(seat=seat, turn=1)  # caught
        Seat.objects.update_or_create(table=table, position=0)  # caught
        Seat.objects.bulk_create([seat])  # caught
        Seat.objects.bulk_update([seat], ["seen_at"])  # caught

    async def consumer(self, seat):
        await seat.asave()  # caught
        await Seat.objects.filter(pk=1).aupdate(seen_at=None)  # caught
        await Seat.objects.acreate(position=1)  # caught
        await Seat.objects.filter(pk=1).adelete()  # caught
"""

NOT_WRITES = """
    from django.core.cache import cache
    from django.core.files.storage import default_storage

    LIMITS = {"moves": 1}
    LIMITS.update(moves=2)

    def view(request, form, extra: dict[str, int], **kwargs):
        context = {"table": 1}
        context.update(board=2)
        context.update({"board": 3})
        merged = dict(context)
        merged.update(seats=4)
        counts: dict[str, int] = {}
        counts.update(a=1)
        extra.update(b=2)
        kwargs.update(c=3)
        seen = set()
        seen.update([1, 2])
        cache.delete("presence:1:2")
        default_storage.save("log.txt", b"")
        user = form.save(commit=False)
        request.session.modified = True
"""


def _write_package(tmp_path: Path, source: str) -> Path:
    package = tmp_path / "shadow"
    for layer in ["views", "live", "jobs", "services"]:
        (package / layer).mkdir(parents=True)
        (package / layer / "__init__.py").write_text("")
    (package / "views" / "pages.py").write_text(textwrap.dedent(source))
    (package / "services" / "tables.py").write_text("def table_join(*, seat):\n    seat.save()\n")
    return package


def test_each_kind_of_write_in_a_view_is_caught_with_its_file_and_line(tmp_path):
    found = writes_outside_services(_write_package(tmp_path, WRITES), tmp_path)
    lines = textwrap.dedent(WRITES).splitlines()
    caught = [number for number, text in enumerate(lines, start=1) if text.endswith("# caught")]
    assert len(caught) == 19
    assert [int(f.split(":")[1]) for f in found] == caught  # none from the package's services/
    assert found[0] == f"shadow/views/pages.py:{caught[0]}: seat.save()"


def test_a_dicts_update_a_caches_delete_and_a_forms_unsaved_instance_are_no_writes(tmp_path):
    assert writes_outside_services(_write_package(tmp_path, NOT_WRITES), tmp_path) == []
