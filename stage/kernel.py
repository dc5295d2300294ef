"""The workbook's kernel: IPython's own, except that it names its language the way the lessons are saved.

JupyterLab copies a kernel's ``language_info`` into a notebook's metadata the moment the kernel starts. IPython's
carries the exact Python version (3.11.7 here, 3.12.4 on some student's laptop), so every lesson came up marked
modified before anyone had typed a thing, asked to be saved on closing, and autosave rewrote the file. The
lessons are saved with ``{"name": "python"}``; this kernel reports exactly that, and JupyterLab finds nothing to
change. ``tools/lab_settings.py`` makes it the kernel of the workbook's environment (in ``etc/ipython``), and
``tests/test_lab_settings.py`` checks that every notebook is saved with what it reports.

Left out, on purpose: the version, the file extension and the editor mode (JupyterLab finds Python's editor
mode from the name alone; "Download as script" then names the file ``.txt``).
"""

from ipykernel.ipkernel import IPythonKernel

LANGUAGE_INFO = {"name": "python"}


class LessonKernel(IPythonKernel):
    """IPython's kernel, reporting ``LANGUAGE_INFO`` -- nothing that differs from one machine to the next."""

    language_info = LANGUAGE_INFO
