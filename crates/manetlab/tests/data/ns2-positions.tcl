# manetlab test-data generator (our own script): ns-2 logs node positions from a movement file.
# Loads a setdest movement file and logs every node's position each second.
set val(nn) 5
set ns_ [new Simulator]
set tf [open positions.tr w]
$ns_ use-newtrace
$ns_ trace-all $tf
set topo [new Topography]
$topo load_flatgrid 500 300
set god_ [create-god $val(nn)]
$ns_ node-config -adhocRouting DumbAgent -llType LL -macType Mac/802_11 -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel [new Channel/WirelessChannel] -topoInstance $topo -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace ON
for {set i 0} {$i < $val(nn)} {incr i} { set node_($i) [$ns_ node]; $node_($i) random-motion 0 }
source [lindex $argv 0]
for {set t 1} {$t <= 58} {incr t} {
  for {set i 0} {$i < $val(nn)} {incr i} { $ns_ at [expr $t * 0.5] "$node_($i) log-movement; puts \"P \[format %.6f \[\$ns_ now\]\] $i \[format %.6f \[\$node_($i) set X_\]\] \[format %.6f \[\$node_($i) set Y_\]\]\"" }
}
$ns_ at 30.5 "$ns_ halt"
$ns_ run
close $tf
