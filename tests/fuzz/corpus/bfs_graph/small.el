# the same graph as small.mtx, 0-based; comments, blank lines and weights are allowed
0 1
0 2   # a comment after an edge

1 3
2 3 0.25
2 3
3 4
4 5
5 5
5 6
6 7
0 7
8 9
9 10
# vertex 11 is isolated: it has no line, so the graph has 11 vertices (0..10)
