#!/bin/sh
# net_noleft.sh: runs CMD... and then checks that no process it started is
# left behind.  Every process of the job inherits ZT_NOLEFT_TOKEN (a value
# unique to this run), so the check finds them in /proc/*/environ, whatever
# launcher started them.  Processes still exiting get up to 10 seconds to
# be gone (polled, not slept through).  Exit status: CMD's, or 98 if a
# process was left behind.
ZT_NOLEFT_TOKEN="noleft.$$.$(date +%s%N)"
export ZT_NOLEFT_TOKEN
"$@"
status=$?
left() {
    for e in /proc/[0-9]*/environ; do
        pid=${e#/proc/}
        pid=${pid%/environ}
        [ "$pid" = "$$" ] && continue
        if { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qx "ZT_NOLEFT_TOKEN=$ZT_NOLEFT_TOKEN"; then
            echo "$pid"
        fi
    done
}
end=$(( $(date +%s) + 10 ))
while :; do
    pids=$(left)
    [ -z "$pids" ] && exit $status
    [ "$(date +%s)" -ge "$end" ] && break
    sleep 0.2
done
echo "net_noleft.sh: processes left behind: $pids" >&2
ps -o pid,args -p $(echo $pids | tr ' ' ',') >&2
exit 98
