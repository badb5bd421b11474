"""
Times train.py's training steps (8 examples, both cores) on the songs of a directory: the median seconds a
step, and the CPU time in user space and in the kernel with the page faults behind the latter. Run it as
train.py runs, and once more without LD_PRELOAD to see what the allocator saves.
Usage: LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 python3 time-steps.py <training dir> [steps]
"""
import random
import resource
import sys
import time

import torch

import train
from model import MaskNet


def main():
    root, steps = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7
    torch.set_num_threads(2)
    tracks = train.load_tracks(root)
    rng = random.Random(0)
    net = MaskNet().to(memory_format=torch.channels_last)
    train.train_mode(net)
    sums = train.BandSums(net)
    opt = torch.optim.Adam(net.parameters(), lr=1e-5)

    def step():
        train.train_step(net, opt, sums, tracks, rng, batch=8)

    step()  # the first step allocates everything once
    before = resource.getrusage(resource.RUSAGE_SELF)
    times = []
    for _ in range(steps):
        start = time.time()
        step()
        times.append(time.time() - start)
    after = resource.getrusage(resource.RUSAGE_SELF)
    print(
        f"{steps} steps, median {sorted(times)[steps // 2]:.2f} s a step ({', '.join(f'{t:.2f}' for t in times)}); "
        f"CPU {after.ru_utime - before.ru_utime:.1f} s user, {after.ru_stime - before.ru_stime:.1f} s kernel; "
        f"{after.ru_minflt - before.ru_minflt} page faults"
    )


if __name__ == "__main__":
    main()
