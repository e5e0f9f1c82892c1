"""Stimulus: hardware layers as register fields and memory images, random legal and illegal ones, coverage.

layer.py     Layer: "UNIT.REGISTER.FIELD" values (numbers or enum names), memory images, checked regions
export.py    write_trace (master: .cfg + .dat with CRCs; nvdlav1: input.txn + golden .dat), play_layers (in memory)
choose.py    Seeded (same seed, same bytes) and Drawn (hypothesis) sources of every decision
sdp.py, pdp.py, cdp.py, conv.py, bdma.py, rubik.py, pipeline.py    random legal layers per unit family
sdp_lut.py   the SDP Y stage's random LUT (shared by a trace's SDP layers)
families.py  the family declarations (generator, breakers, covergroup; plugins' too), their availability per
             profile, traces named as NVIDIA names its tests
breakers.py  Breaker: one per rule of golden/rules.py's registry, one signature; the family draw (Fields)
illegal_<unit>.py    each unit's breakers (pdp, sdp, cdp, conv, dma, rubik, sequence: the CBUF pairs), named
                     by their family's declaration
illegal.py   the breakers gathered by rule id; an illegal layer breaking one rule; run on the golden model
coverage.py  Coverage: the families' covergroups (cocotb-coverage) built, sampled and reported
covergroups/ the project's covergroups, one module per family (sdp, pdp, conv, cdp, rubik, bdma)
fuzz.py      legal and illegal layers through the golden model, findings reported
strategies.py    hypothesis strategies
fixture_sdp.py   the RTL bench's fixture-subset SDP traces (rtl/suite.py's default layers)
"""
