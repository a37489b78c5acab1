# docs/sync.md's example of a remote that withholds: device a wrote operations 1 to 3 in two
# batches, device c read all three and said so in a batch of its own, then a's second batch
# went missing; this device (b, the default data directory) has not synced yet.
set -eu
mkdir remote
a="habitto --home $HOME/a" c="habitto --home $HOME/c"
$a remote set "dir:$HOME/remote"
$a add Walk
$a check walk
$a sync
$a add Stretch
$a sync
$c remote set "dir:$HOME/remote"
$c add Read
$c sync
rm remote/users/default/devices/*/ops/3-3.batch
habitto remote set "dir:$HOME/remote" > /dev/null 2>&1 || true
