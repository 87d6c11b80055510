#
# nodes: 5, pause: 0.00, max speed: 10.00, max x: 500.00, max y: 300.00
#
$node_(0) set X_ 187.324818448062
$node_(0) set Y_ 231.672551177417
$node_(0) set Z_ 0.000000000000
$node_(1) set X_ 383.648765342995
$node_(1) set Y_ 260.164604409188
$node_(1) set Z_ 0.000000000000
$node_(2) set X_ 254.839604489188
$node_(2) set Y_ 222.916938263626
$node_(2) set Z_ 0.000000000000
$node_(3) set X_ 414.774265553115
$node_(3) set Y_ 238.684439949310
$node_(3) set Z_ 0.000000000000
$node_(4) set X_ 445.400596746086
$node_(4) set Y_ 147.881315732215
$node_(4) set Z_ 0.000000000000
$ns_ at 0.000000000000 "$node_(0) setdest 261.270482988157 293.480981128301 5.821292768426"
$ns_ at 0.000000000000 "$node_(1) setdest 114.924428147329 20.688590617670 5.237546209108"
$ns_ at 0.000000000000 "$node_(2) setdest 402.169537067242 72.941901877503 1.155171028868"
$ns_ at 0.000000000000 "$node_(3) setdest 499.198267197525 65.483420952352 1.317929151498"
$ns_ at 0.000000000000 "$node_(4) setdest 316.545913308288 268.552316575982 5.056603760871"
$god_ set-dist 0 1 1
$god_ set-dist 0 2 1
$god_ set-dist 0 3 1
$god_ set-dist 0 4 2
$god_ set-dist 1 2 1
$god_ set-dist 1 3 1
$god_ set-dist 1 4 1
$god_ set-dist 2 3 1
$god_ set-dist 2 4 1
$god_ set-dist 3 4 1
$ns_ at 2.796611385371 "$god_ set-dist 0 4 1"
$ns_ at 16.555692456440 "$node_(0) setdest 247.267364508382 87.541476383020 0.508080610465"
#
# Destination Unreachables: 0
#
# Route Changes: 1
#
# Link Changes: 1
#
# Node | Route Changes | Link Changes
#    0 |             1 |            1
#    1 |             0 |            0
#    2 |             0 |            0
#    3 |             0 |            0
#    4 |             1 |            1
#
