from diffusion.schedule import LinearSchedule

schedule = LinearSchedule(10)
print(schedule.alphas_cumprod.dtype)
