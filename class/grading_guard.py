"""Run inside nbgrader's grading kernel: puts back what a submission changed in Python and IPython, and
says what it was, so that a cell cannot rewrite the graded cells that follow it.

class/grading.py's `GuardedExecute` sends this file to the kernel before the notebook's first cell (so
nothing of the student's has run yet), then calls the guard before and after every graded cell, and once
at the end. The call travels as a `user_expressions` entry of an empty execute request: IPython runs no
input transformer on an empty cell and evaluates user expressions with a plain `eval`, so a transformer
the answers installed never sees it. Each call compares what it finds with what it saw at the start,
puts the start back, and returns, as JSON, a line for each change:

- IPython's input transformers (cleanup, line, token, post), AST transformers, prefilter transformers,
  the compiler and the transformer manager: a cell that rewrites the cells after it (`assert` becoming
  `pass`, say) is the cheat this exists for;
- the import system: entries added to `sys.meta_path` or `sys.path_hooks`, finders planted in
  `sys.path_importer_cache`, and any function or method of importlib's loaders and finders replaced, so
  the grader's checks load from the grader's files and nowhere else;
- the rest of what runs a graded cell and reports its result: builtins, the shell's, kernel's and
  session's methods (on the object or its class), trace and profile functions, event callbacks, the
  shell's custom exception handler and the exceptions it answers (one is allowed: the NameError handler
  the workbook's own checks install, exercises/checks/in_notebook.py, read from the trusted files);
- what it can only report: threads the answers started and left running, and functions or modules of
  the workbook (harness, stage, exercises) that now come from a cell or from the submission's own files.

Code from "a cell" means code whose file is outside Python's installation and the workbook. Left out,
and why: this runs in the same process as the student's code, so a student who reads this file and
goes after the guard itself (finds it in memory, rewrites its results) can still defeat it; the static
scan in class/grading.py flags the names that takes (`_context_desk`, `__closure__`, `gc`, ...), and a
flagged submission scores 0 anyway. Grading in a process of its own would close that too; nbgrader does
not do it, and the checks need the student's functions in the process that calls them.
"""


def _context_desk_make_guard(nonce, trusted_folders):
    import builtins
    import importlib
    import importlib._bootstrap
    import importlib._bootstrap_external
    import importlib.machinery
    import importlib.util
    import json
    import os
    import sys
    import sysconfig
    import threading
    import types

    shell = get_ipython()  # noqa: F821 -- defined in every IPython kernel
    kernel = getattr(shell, "kernel", None)
    session = getattr(kernel, "session", None)
    roots = {os.path.realpath(p) for p in sysconfig.get_paths().values()}
    roots |= {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    roots |= {os.path.realpath(p) for p in trusted_folders}
    roots = tuple(root.rstrip(os.sep) + os.sep for root in roots)

    def outside_file(path) -> bool:
        """A file of a cell (ipykernel writes cells to /tmp/ipykernel_PID/...) or of the submission."""
        if not path or path.startswith("<ipython-input"):
            return True
        if path.startswith("<"):
            return False  # code Python itself made with exec: dataclasses, namedtuples
        return not os.path.realpath(path).startswith(roots)

    def from_outside(thing) -> bool:
        """True when `thing` (a function, a class, an object) is code from a cell or the submission."""
        code = getattr(thing, "__code__", None) or getattr(
            getattr(thing, "__func__", None), "__code__", None
        )
        if code is None and not isinstance(thing, type):
            thing = type(thing)
        if isinstance(thing, type):
            methods = [v for v in vars(thing).values() if hasattr(v, "__code__")]
            return any(from_outside(m) for m in methods)
        if code is None:
            return False  # written in C: part of Python
        return outside_file(code.co_filename)

    def callables(namespace: dict) -> dict:
        return {
            k: v for k, v in namespace.items() if callable(v) or isinstance(v, types.ModuleType)
        }

    # ---- what a graded cell relies on, as it is now (before any of the student's code) ----------

    lists = {  # name -> (the list as it is found each time, its pristine contents)
        "an input transformer (cleanup)": lambda: (
            shell.input_transformer_manager.cleanup_transforms
        ),
        "an input transformer (line)": lambda: shell.input_transformer_manager.line_transforms,
        "an input transformer (token)": lambda: shell.input_transformer_manager.token_transformers,
        "an input transformer (post)": lambda: shell.input_transformers_post,
        "an AST transformer": lambda: shell.ast_transformers,
        "a prefilter transformer": lambda: shell.prefilter_manager._transformers,
        "a prefilter checker": lambda: shell.prefilter_manager._checkers,
        "an import hook (sys.meta_path)": lambda: sys.meta_path,
        "an import hook (sys.path_hooks)": lambda: sys.path_hooks,
    }
    pristine_lists = {name: list(get()) for name, get in lists.items()}
    objects = {
        "the shell's transformer manager": (shell, "input_transformer_manager"),
        "the shell's compiler": (shell, "compile"),
    }
    pristine_objects = {name: getattr(owner, attr) for name, (owner, attr) in objects.items()}

    modules = [builtins, importlib, importlib._bootstrap, importlib._bootstrap_external]
    modules += [importlib.machinery, importlib.util]
    pristine_modules = {m.__name__: callables(vars(m)) for m in modules}
    classes = set()
    for module in modules[1:]:
        classes |= {v for v in vars(module).values() if isinstance(v, type)}
    for instance in (shell, kernel, session):
        if instance is not None:
            classes |= {c for c in type(instance).__mro__ if c is not object}
    pristine_classes = {c: callables(dict(vars(c))) for c in classes}
    instances = {"the shell": shell, "the kernel": kernel, "the session": session}
    pristine_instances = {
        name: callables(vars(obj)) for name, obj in instances.items() if obj is not None
    }
    pristine_hooks = (
        sys.gettrace(),
        sys.getprofile(),
        threading._trace_hook,
        threading._profile_hook,
    )
    pristine_callbacks = {event: list(cbs) for event, cbs in shell.events.callbacks.items()}
    pristine_threads = {t.ident for t in threading.enumerate()}
    pristine_user_builtins = shell.user_ns.get("__builtins__")
    # Which exceptions the shell's CustomTB answers: a tuple, so not among the callables above.
    pristine_handled = {"exceptions": shell.custom_exceptions}

    # ---- each call: compare, put back, say ------------------------------------------------------------

    def workbook_handler(where: str, name: str, value) -> bool:
        """The exception handler the workbook's own checks install (IPython's set_custom_exc wraps
        exercises/checks/in_notebook.py's): the shell's CustomTB, every function it closes over from
        Python, IPython or the workbook's installed files, none from a cell or the submission."""
        if where != "the shell" or name != "CustomTB":
            return False
        closure = getattr(getattr(value, "__func__", None), "__closure__", None) or ()
        inside = [cell.cell_contents for cell in closure if callable(cell.cell_contents)]
        return bool(inside) and not any(from_outside(thing) for thing in inside)

    def put_back_names(where: str, owner, now: dict, before: dict, found: list) -> None:
        for name, value in now.items():
            if name in before and before[name] is value:
                continue
            if name in before and workbook_handler(where, name, value):
                before[name] = value  # the checks' own "run this cell first" handler: kept
                pristine_handled["exceptions"] = shell.custom_exceptions
                continue
            if name not in before and not from_outside(value):
                continue  # something Python or a library added, such as a lazily imported module
            found.append(f"{where}.{name} was {'replaced' if name in before else 'added'}")
            try:
                if name in before:
                    setattr(owner, name, before[name])
                else:
                    delattr(owner, name)
            except (AttributeError, TypeError):
                pass
        for name in set(before) - set(now):
            found.append(f"{where}.{name} was removed")
            setattr(owner, name, before[name])

    def guard() -> str:
        found = []
        for name, get in lists.items():
            current, before = get(), pristine_lists[name]
            for extra in [item for item in current if not any(item is b for b in before)]:
                found.append(f"{name} was added: {extra!r}")
            if len(current) != len(before) or any(a is not b for a, b in zip(current, before)):
                current[:] = before
        for name, (owner, attr) in objects.items():
            if getattr(owner, attr) is not pristine_objects[name]:
                found.append(f"{name} was replaced")
                setattr(owner, attr, pristine_objects[name])
        for module in modules:
            put_back_names(
                module.__name__,
                module,
                callables(vars(module)),
                pristine_modules[module.__name__],
                found,
            )
        for cls, before in pristine_classes.items():
            where = f"{cls.__module__}.{cls.__qualname__}"
            put_back_names(where, cls, callables(dict(vars(cls))), before, found)
        for name, before in pristine_instances.items():
            put_back_names(name, instances[name], callables(vars(instances[name])), before, found)
        for key, finder in list(sys.path_importer_cache.items()):
            honest = finder is None or (
                type(finder).__name__ in ("FileFinder", "zipimporter")
                and not from_outside(finder)
                and os.path.realpath(str(getattr(finder, "path", key)))
                == os.path.realpath(str(key))
            )
            if not honest:
                found.append(
                    f"a finder was planted in sys.path_importer_cache for {key}: {finder!r}"
                )
                del sys.path_importer_cache[key]
        hooks = (sys.gettrace(), sys.getprofile(), threading._trace_hook, threading._profile_hook)
        if hooks != pristine_hooks:
            found.append("a trace or profile function was set")
            sys.settrace(pristine_hooks[0])
            sys.setprofile(pristine_hooks[1])
            threading.settrace(pristine_hooks[2])
            threading.setprofile(pristine_hooks[3])
        for event, callbacks in shell.events.callbacks.items():
            for callback in list(callbacks):
                if callback not in pristine_callbacks.get(event, []) and from_outside(callback):
                    found.append(f"a {event} callback was registered: {callback!r}")
                    callbacks.remove(callback)
        if shell.custom_exceptions != pristine_handled["exceptions"]:
            found.append(f"the shell's custom exceptions became {shell.custom_exceptions!r}")
            shell.custom_exceptions = pristine_handled["exceptions"]
        if shell.user_ns.get("__builtins__") is not pristine_user_builtins:
            found.append("the notebook's __builtins__ was replaced")
            shell.user_ns["__builtins__"] = pristine_user_builtins
        for thread in threading.enumerate():
            target = getattr(thread, "_target", None) or type(thread).run
            if thread.ident not in pristine_threads and from_outside(target):
                found.append(f"a thread started by the answers is still running: {thread.name}")
        for name, module in list(sys.modules.items()):
            if name.split(".")[0] not in ("harness", "stage", "exercises"):
                continue
            if module is None or outside_file(getattr(module, "__file__", None) or ""):
                found.append(
                    f"the module {name} comes from the submission's own files, not the workbook"
                )
                continue
            for attr, value in list(vars(module).items()):
                if (callable(value) or isinstance(value, type)) and from_outside(value):
                    found.append(f"{name}.{attr} was replaced by code from a cell")
        return json.dumps({"nonce": nonce, "found": found})

    return guard


def _context_desk_install(nonce, trusted_folders):
    """Called (as a user expression) before any of the student's code runs; leaves only the guard."""
    global _context_desk_guard
    _context_desk_guard = _context_desk_make_guard(nonce, trusted_folders)
    for name in ("_context_desk_make_guard", "_context_desk_install"):
        globals().pop(name, None)
    return "installed"
