node_modules/
# takoform's state and the embedded host's data
.takoform/
# what synth writes
cdktf.out/
# what `takoform get --forms DIR` generates
.gen/
