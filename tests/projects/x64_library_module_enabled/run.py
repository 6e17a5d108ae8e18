# expected compiles: cumprod=1
import jax

jax.config.update("jax_enable_x64", True)

from diffusion.schedule import LinearSchedule  # noqa: E402

schedule = LinearSchedule(10)
print(schedule.alphas_cumprod.dtype)
