"""Jupyter server settings for every student's server (copied by class/jupyterhub_config.py, with its numbers).

JupyterLab gives every open notebook a kernel of its own, and a kernel holds its memory until it is shut
down: a student who opens lessons 01 to 05 in turn holds five kernels (about 800 MiB) by the end of the
evening. Two settings keep that in hand:

- kernels idle for KERNEL_IDLE seconds (no cell running, no output) and with no browser tab connected
  are shut down (jupyter_server's own culling; `cull_connected = False`, so a notebook still open in a tab
  is never culled by this rule);
- at most MAX_KERNELS kernels per student: when a student opens one more notebook, the least recently
  active idle kernel (the lesson they left behind) is shut down, and its notebook shows "No Kernel" until
  they run a cell there again (JupyterLab then offers to start a new one). A kernel that is running a
  cell is never shut down by this; when all are busy, the new one starts anyway.

Left out: saving a kernel's variables before it is shut down (they are gone; lessons re-run in seconds).
"""

c = get_config()  # noqa: F821 -- Jupyter provides get_config() when it loads this file

MAX_KERNELS = 2
KERNEL_IDLE = 1200

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager  # noqa: E402


class LeastRecentlyUsedKernels(AsyncMappingKernelManager):
    """A kernel manager that keeps at most MAX_KERNELS kernels, shutting down the least recently used.

    The old kernel goes before the new one starts, so the student never holds more than MAX_KERNELS."""

    async def start_kernel(self, *args, **kwargs):
        wanted = kwargs.get("kernel_id")
        if wanted is None or wanted not in self:  # a new kernel, not a restart of a running one
            running = [self.get_kernel(kernel_id) for kernel_id in self.list_kernel_ids()]
            idle = sorted(
                (
                    k
                    for k in running
                    if getattr(k, "execution_state", "idle") in ("idle", "starting")
                ),
                key=lambda k: k.last_activity,
            )
            for kernel in idle[: max(0, len(running) + 1 - MAX_KERNELS)]:
                self.log.info(
                    "Shutting down kernel %s, the least recently used, to keep %d kernels (class limit)",
                    kernel.kernel_id,
                    MAX_KERNELS,
                )
                await self.shutdown_kernel(kernel.kernel_id)
        return await super().start_kernel(*args, **kwargs)


c.ServerApp.kernel_manager_class = LeastRecentlyUsedKernels
c.MappingKernelManager.cull_idle_timeout = KERNEL_IDLE
c.MappingKernelManager.cull_interval = 60
c.MappingKernelManager.cull_connected = False
c.MappingKernelManager.cull_busy = False
