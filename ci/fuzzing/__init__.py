"""The coverage-directed fuzzing loop of `fuzz --impl` (campaign.py: the loop; candidates.py, feedback.py,
report.py). The one default the command line shows lives here, so that building the parser imports no loop."""

#: Candidates with golden-side novelty a directed step weighs against each other before it runs the best
#: (`fuzz --choices`). On nv_small about one convolution draw in 17 fills 28 or more CBUF banks (the RTL's largest
#: single gain); with a third of a step's candidates fresh and a sixth of those convolutions, twelve choices find
#: one in about 30 steps. Each choice is a golden-model run: worth it against an RTL run, not on the fixture.
CHOICES = 12
