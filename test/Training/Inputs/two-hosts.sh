#!/bin/bash
# Two hosts on one machine, for tests of jobs whose ranks sit on two hosts.
#
#   two-hosts.sh --probe          exit 0 when this machine can make them
#   two-hosts.sh DIR -- CMD...    run CMD on host 1 with host 2 beside it
#
# Each host is a network namespace with its own address (10.77.0.1 and
# 10.77.0.2 on a veth pair), its own host name (gptc-h1, gptc-h2; a UTS
# namespace) and its own /dev/shm (a mount namespace with a fresh tmpfs),
# so that shared memory cannot join them: the file system is shared, as a
# cluster's storage is (Open MPI's session directories under /tmp carry
# the host name). CMD runs on host 1 with
# OMPI_MCA_plm_rsh_agent naming DIR/agent, which mpirun calls as it calls
# ssh (`agent HOST COMMAND...`) to start its daemon on host 2, in a fresh
# environment as ssh gives one. The namespaces go when CMD ends.
set -euo pipefail

tag="gptc$$"
ns1="$tag-h1" ns2="$tag-h2"

# Hosts left by a run that was killed (no EXIT trap): their pid is gone.
for stale in $(ip netns list 2>/dev/null | grep -o '^gptc[0-9]*-h[12]'); do
  pid=${stale#gptc}
  pid=${pid%-h?}
  kill -0 "$pid" 2>/dev/null || ip netns del "$stale" 2>/dev/null || true
done

make_hosts() {
  ip netns add "$ns1"
  ip netns add "$ns2"
  ip link add "${tag}a" netns "$ns1" type veth peer name "${tag}b" netns "$ns2"
  ip -n "$ns1" addr add 10.77.0.1/24 dev "${tag}a"
  ip -n "$ns2" addr add 10.77.0.2/24 dev "${tag}b"
  for ns in "$ns1" "$ns2"; do
    ip -n "$ns" link set lo up
  done
  ip -n "$ns1" link set "${tag}a" up
  ip -n "$ns2" link set "${tag}b" up
}

remove_hosts() {
  ip netns del "$ns1" 2>/dev/null || true
  ip netns del "$ns2" 2>/dev/null || true
}

if [[ "${1:-}" == "--probe" ]]; then
  trap remove_hosts EXIT
  [[ $(id -u) == 0 ]] && command -v ip >/dev/null &&
    command -v unshare >/dev/null && make_hosts >/dev/null 2>&1 &&
    ip netns exec "$ns1" unshare --uts --mount true >/dev/null 2>&1
  exit
fi

dir=$1
shift
[[ "${1:-}" == "--" ]] && shift
mkdir -p "$dir"

# `on NS NAME CMD...`: CMD as a process of that host.
cat > "$dir/on" <<'EOF'
#!/bin/bash
ns=$1 name=$2
shift 2
exec ip netns exec "$ns" unshare --uts --mount bash -c '
  mount -t tmpfs tmpfs /dev/shm && hostname "$0" && exec "$@"' "$name" "$@"
EOF
# `agent HOST COMMAND...`: what ssh would do, on the host with that address.
cat > "$dir/agent" <<EOF
#!/bin/bash
case "\$1" in
  10.77.0.1|gptc-h1) ns=$ns1 name=gptc-h1 ;;
  10.77.0.2|gptc-h2) ns=$ns2 name=gptc-h2 ;;
  *) echo "agent: no host \$1" >&2; exit 255 ;;
esac
shift
exec "$dir/on" "\$ns" "\$name" env -i PATH="\$PATH" HOME="\$HOME" bash -c "\$*"
EOF
chmod +x "$dir/on" "$dir/agent"

trap remove_hosts EXIT
make_hosts
OMPI_MCA_plm_rsh_agent="$dir/agent" "$dir/on" "$ns1" gptc-h1 "$@"
