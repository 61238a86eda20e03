#!/usr/bin/env bash
# A single-node Slurm cluster on loopback, for the test of wadn's sweeps on a
# cluster (cmd/wadn TestSlurmSweep, TestSlurmTimeLimit).
#
#   scripts/slurm-local.sh start DIR   bring it up, its files in DIR
#   scripts/slurm-local.sh stop DIR    stop the daemons it started, by their
#                                      pids, and remove its network namespace
#
# Slurm's commands then run through DIR/exec: DIR/exec sbatch job.sh.
#
# It needs root, iproute2 and Debian's slurm-wlm and munge (apt-get install
# slurm-wlm munge). The daemons run in a network namespace of their own,
# which reaches nothing beyond itself (its loopback, and two interfaces
# joined only to each other): slurmctld and slurmd talk on 127.0.0.1 (ports
# SLURMCTLD_PORT and SLURMD_PORT, default 6817 and 6818); munged serves a
# socket in DIR. Nothing is written outside DIR and the namespace.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [ -z "$cmd" ] || [ -z "$dir" ]; then
	echo "usage: $0 start|stop DIR" >&2
	exit 2
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

ns=wadn-slurm-$(printf '%s' "$dir" | cksum | cut -d' ' -f1)

stop() {
	for d in slurmd slurmctld munged; do
		if [ -s "$dir/$d.pid" ]; then
			pid=$(cat "$dir/$d.pid")
			kill "$pid" 2>/dev/null || true
			for _ in $(seq 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -9 "$pid" 2>/dev/null || true
			rm -f "$dir/$d.pid"
		fi
	done
	ip netns del "$ns" 2>/dev/null || true
}

case "$cmd" in
stop)
	stop
	exit 0
	;;
start) ;;
*)
	echo "usage: $0 start|stop DIR" >&2
	exit 2
	;;
esac

if [ "$(id -u)" != 0 ]; then
	echo "$0: needs root (the daemons run as root on this machine)" >&2
	exit 1
fi
for b in ip nsenter munged slurmctld slurmd sbatch squeue sinfo; do
	if ! command -v "$b" >/dev/null 2>&1; then
		echo "$0: no $b: install Debian's iproute2, util-linux, slurm-wlm and munge" >&2
		exit 1
	fi
done

host=$(hostname -s)
cpus=$(nproc)
ctld_port=${SLURMCTLD_PORT:-6817}
d_port=${SLURMD_PORT:-6818}
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"

# The namespace: the loopback, and a pair of veth interfaces joined to each
# other inside it, which lead nowhere (name resolution with AI_ADDRCONFIG
# wants an address besides the loopback's). Commands enter its network
# alone (nsenter), keeping the machine's file systems (slurmd reads
# /sys/fs/cgroup).
ip netns del "$ns" 2>/dev/null || true
ip netns add "$ns"
ip netns exec "$ns" ip link set lo up
ip netns exec "$ns" ip link add wadn0 type veth peer name wadn1
ip netns exec "$ns" ip addr add 169.254.99.1/32 dev wadn0
ip netns exec "$ns" ip link set wadn0 up
ip netns exec "$ns" ip link set wadn1 up
in_ns() { nsenter --net=/run/netns/"$ns" "$@"; }
cat >"$dir/exec" <<EXEC
#!/bin/sh
# Runs a command beside the cluster: in its network namespace, with its
# configuration.
exec nsenter --net=/run/netns/$ns env SLURM_CONF=$dir/slurm.conf "\$@"
EXEC
chmod +x "$dir/exec"

# munge: a key of its own, its socket in DIR.
if [ ! -s "$dir/munge/munge.key" ]; then
	head -c 1024 /dev/urandom >"$dir/munge/munge.key"
	chmod 400 "$dir/munge/munge.key"
fi
in_ns munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
	--pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munge.seed"

# cred_expire: a requeued job waits this long before it starts again
# (default 120 s), and the scheduler looks for it every bf_interval seconds
# (default 30): the sweep test requeues a task warned of its time limit.
cat >"$dir/slurm.conf" <<CONF
ClusterName=wadn-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock,cred_expire=5
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=5
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
KillWait=30
MaxArraySize=10000
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

in_ns slurmctld -f "$dir/slurm.conf"
in_ns slurmd -f "$dir/slurm.conf"
for _ in $(seq 100); do
	state=$("$dir/exec" sinfo -h -o %T 2>/dev/null || true)
	case "$state" in
	idle*|mix*|alloc*)
		echo "up: run Slurm's commands through $dir/exec"
		exit 0
		;;
	esac
	sleep 0.2
done
echo "$0: the node did not come up (state '$state'); logs in $dir" >&2
tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
stop
exit 1
