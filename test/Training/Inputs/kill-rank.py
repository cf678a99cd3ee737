"""Runs an MPI job, kills one of its ranks with SIGKILL (or stops it with
SIGSTOP) and times the end.

    kill-rank.py [--signal KILL|STOP] --rank R --after-line TEXT
                 --timeout S -- mpirun ...

Copies the job's output (stdout and stderr together) to stdout. When a
line containing TEXT appears, sends the signal to the job's process whose
environment says OMPI_COMM_WORLD_RANK=R and prints "killed rank R (pid
P) after 'TEXT'" ("stopped" for SIGSTOP); then waits for the job. Prints "job ended with exit C
in T s" and exits 0 when the job ended with a non-zero exit within S
seconds of the kill; otherwise kills the whole job and exits 1.
"""
import argparse
import os
import signal
import subprocess
import sys
import threading
import time


def descendants(root):
    children = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        children.setdefault(ppid, []).append(int(pid))
    out, work = [], [root]
    while work:
        for child in children.get(work.pop(), []):
            out.append(child)
            work.append(child)
    return out


def rank_of(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            for var in f.read().split(b"\0"):
                if var.startswith(b"OMPI_COMM_WORLD_RANK="):
                    return int(var.split(b"=", 1)[1])
    except (OSError, ValueError):
        pass
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--signal", choices=["KILL", "STOP"], default="KILL")
    ap.add_argument("--rank", type=int, required=True)
    ap.add_argument("--after-line", required=True)
    ap.add_argument("--timeout", type=float, required=True)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    job = subprocess.Popen(command, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           start_new_session=True)
    killed_at = [None]

    def watch():
        for line in job.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            if killed_at[0] is None and args.after_line in line:
                for pid in descendants(job.pid):
                    if rank_of(pid) == args.rank:
                        os.kill(pid, getattr(signal, "SIG" + args.signal))
                        killed_at[0] = time.monotonic()
                        verb = "stopped" if args.signal == "STOP" else "killed"
                        print(f"{verb} rank {args.rank} (pid {pid}) after "
                              f"'{args.after_line}'", flush=True)
                        break

    reader = threading.Thread(target=watch, daemon=True)
    reader.start()
    deadline = time.monotonic() + 600
    while job.poll() is None and time.monotonic() < deadline:
        if killed_at[0] and time.monotonic() - killed_at[0] > args.timeout:
            break
        time.sleep(0.1)
    if job.poll() is None:
        os.killpg(job.pid, signal.SIGKILL)
        job.wait()
        print("job still running: killed it")
        return 1
    reader.join(timeout=5)
    if killed_at[0] is None:
        print(f"never saw '{args.after_line}'; job exit {job.returncode}")
        return 1
    took = time.monotonic() - killed_at[0]
    print(f"job ended with exit {job.returncode} in {took:.1f} s")
    return 0 if job.returncode != 0 and took <= args.timeout else 1


if __name__ == "__main__":
    sys.exit(main())
