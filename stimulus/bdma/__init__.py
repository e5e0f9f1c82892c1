"""The bdma family: random legal BDMA operation groups (layers.py) and the covergroup (covergroup.py). Its breakers
are those of the DMA rules of every unit (stimulus/illegal_dma.py, golden/units/dma_rules.py), each broken from
its own unit's family; two layers per trace cover the second launch register."""
