"""Jupyter server settings for every student's server (copied by class/jupyterhub_config.py, with its numbers).

Kernels talk to the server over Unix sockets, not TCP. Jupyter's default puts each kernel's five
channels on 127.0.0.1 TCP ports, and any account on the machine can connect to a port there:
`/proc/net/tcp` lists every listening port with its owner's uid, and the iopub channel is a ZeroMQ PUB
socket that sends every cell's code and output to whoever subscribes (the messages are signed, which
protects execution, not reading). With `transport = "ipc"` the channels are socket files beside the
kernel's connection file, in the student's runtime folder (~/.local/share/jupyter/runtime, 0700 inside
a 0700 home), so no other account can even reach them. Where that path would be too long for a Unix
socket (107 bytes), the sockets go into a private folder of the student's own under /tmp instead.

JupyterLab gives every open notebook a kernel of its own, and a kernel holds its memory until it is shut
down: a student who opens lessons 01 to 05 in turn holds five kernels (about 800 MiB) by the end of the
evening. Two settings keep that in hand:

- kernels idle for KERNEL_IDLE seconds (no cell running, no output) and with no browser tab connected
  are shut down (jupyter_server's own culling; `cull_connected = False`, so a notebook still open in a tab
  is never culled by this rule);
- at most MAX_KERNELS kernels per student, always: when a student opens one more notebook, the least
  recently active idle kernel (the lesson they left behind) is shut down, and its notebook shows
  "No Kernel" until they run a cell there again. A kernel that is running a cell is never shut down;
  when every kernel is busy, the new one is refused with a message that says so (JupyterLab shows it
  in a dialog), rather than started over the cap.

Left out: saving a kernel's variables before it is shut down (they are gone; lessons re-run in seconds).
"""

import asyncio
import os
import tempfile

c = get_config()  # noqa: F821 -- Jupyter provides get_config() when it loads this file

MAX_KERNELS = 2
KERNEL_IDLE = 1200
UNIX_SOCKET_PATH_MAX = 107  # bytes, sun_path on Linux, less its final NUL

from jupyter_core.paths import jupyter_runtime_dir  # noqa: E402
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager  # noqa: E402
from tornado import web  # noqa: E402


class LeastRecentlyUsedKernels(AsyncMappingKernelManager):
    """A kernel manager that keeps at most MAX_KERNELS kernels, shutting down the least recently used.

    The old kernel goes before the new one starts, so the student never holds more than MAX_KERNELS.
    When none of them is idle, the new kernel is refused (HTTP 409) with a message for the student."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._starting = (
            asyncio.Lock()
        )  # two notebooks opened at once must not both slip under the cap

    async def start_kernel(self, *args, **kwargs):
        wanted = kwargs.get("kernel_id")
        if wanted is not None and wanted in self:  # a restart of a running kernel, not a new one
            return await super().start_kernel(*args, **kwargs)
        async with self._starting:
            running = [self.get_kernel(kernel_id) for kernel_id in self.list_kernel_ids()]
            idle = sorted(
                (k for k in running if getattr(k, "execution_state", "idle") == "idle"),
                key=lambda k: k.last_activity,
            )
            over = max(0, len(running) + 1 - MAX_KERNELS)
            if over > len(idle):
                raise web.HTTPError(
                    409,
                    f"You already have {len(running)} kernels and the class allows {MAX_KERNELS}, "
                    "and none of them is idle: wait for a running cell to finish, or shut a kernel "
                    "down (Kernel > Shut Down Kernel), then open this notebook again.",
                )
            for kernel in idle[:over]:
                self.log.info(
                    "Shutting down kernel %s, the least recently used, to keep %d kernels (class limit)",
                    kernel.kernel_id,
                    MAX_KERNELS,
                )
                await self.shutdown_kernel(kernel.kernel_id)
            return await super().start_kernel(*args, **kwargs)


def fits_a_socket_path(runtime: str) -> bool:
    """A kernel's socket is the runtime folder + "/kernel-" + a 36-character id + "-ipc-N": 57 bytes more.

    Example: "/home/ada/.local/share/jupyter/runtime" (38 bytes) -> True (95 <= 107)."""
    return len(os.fsencode(runtime)) + 57 <= UNIX_SOCKET_PATH_MAX


c.ServerApp.kernel_manager_class = LeastRecentlyUsedKernels
c.KernelManager.transport = "ipc"
if not fits_a_socket_path(jupyter_runtime_dir()):
    # The server hands its runtime folder to the kernel manager; mkdtemp makes it 0700, the student's own.
    c.ServerApp.runtime_dir = tempfile.mkdtemp(prefix="jupyter-runtime-")
c.MappingKernelManager.cull_idle_timeout = KERNEL_IDLE
c.MappingKernelManager.cull_interval = 60
c.MappingKernelManager.cull_connected = False
c.MappingKernelManager.cull_busy = False
