"""Stimulus: hardware layers as register fields and memory images, random legal and illegal ones, coverage.

<family>/    one package per family (sdp, pdp, conv, cdp, sdp_reg, sdp_pdp, rubik, bdma, deconv): family.py its
             declaration, layers.py its random legal layers, illegal.py its breakers, corner.py its corner aimer,
             covergroup.py its covergroup (sdp/lut.py the Y stage's LUT, sdp/fixture.py the RTL bench's
             fixture-subset SDP traces; conv/modes.py the convolution modes, conv/illegal_sequence.py the CBUF pairs)
layer.py     Layer: "UNIT.REGISTER.FIELD" values (numbers or enum names), memory images, checked regions
export.py    write_trace (master: .cfg + .dat with CRCs; nvdlav1: input.txn + golden .dat), play_layers (in memory)
choose.py    Seeded (same seed, same bytes) and Drawn (hypothesis) sources of every decision
families.py  Family; the families' registry (the project's MODULES, plugins' entry points), their availability per
             profile, traces named as NVIDIA names its tests
breakers.py  Breaker: one per rule of golden/rules.py's registry, one signature; the family draw (Fields)
illegal_dma.py   the breakers of every unit's DMA rules (golden/units/dma_rules.py), declared by the bdma family
illegal.py   the breakers gathered by rule id; an illegal layer breaking one rule; run on the golden model
corner_*.py  what corner aiming shares (corner_fp16.py: the fp16 aimers of sdp, pdp and cdp)
coverage.py  Coverage: the families' covergroups (cocotb-coverage) built, sampled and reported
covergroups/ what the covergroups share (Samplers, common bins)
fuzz.py      legal and illegal layers through the golden model, findings reported
strategies.py    hypothesis strategies
"""
