"""Failure signatures: the same failure on different layers, folders and numbers gives one triage bucket."""

from ci.regression.signature import normalise


def test_numbers_paths_and_kept_folders_do_not_split_a_bucket():
    a = normalise("pri_mem[0x80000000, +0x20): SDP output (W=1 H=1 C=1 int8): 1 of 32 elements mismatch "
                  "(folder kept: /tmp/nvdla-sdp_1x1x1-abc)")
    b = normalise("pri_mem[0x90000000, +0x4000): SDP output (W=8 H=8 C=32 int8): 17 of 2048 elements mismatch "
                  "(folder kept: /tmp/nvdla-sdp_8x8x32-xyz)")
    assert a == b and "folder kept" not in a


def test_different_failures_stay_apart():
    assert normalise("timeout: no interrupt") != normalise("1 of 32 elements mismatch")
    assert normalise("/x/y/model killed by signal 11") == normalise("/a/b/model killed by signal 6")
    assert normalise("sdp_8x8x32_bypass_int8_0.cfg:12: check_crc", "sdp_8x8x32_bypass_int8_0") == \
        normalise("sdp_1x1x1_pass_through_int8.cfg:40: check_crc", "sdp_1x1x1_pass_through_int8")


def test_a_reproduce_command_names_the_implementation_the_rtl_and_the_test_with_an_out_of_its_own():
    from ci.regression.engine import Settings
    from ci.regression.item import Item
    from ci.regression.items import reproduce_command

    random = Item("random_sdp/s9_2l", "random_sdp", {"seed": 9, "layers": 2})
    golden = reproduce_command(random, Settings(impl="golden", level="nightly", seed=42, command="/v/nvdla-verif"))
    assert golden == ("/v/nvdla-verif regress --level nightly --seed 42 --impl golden --test random_sdp/s9_2l "
                      "--out regress-repro-random_sdp-s9_2l")
    trace = Item("nvidia/nv_small/x", "nvidia_traces", {"path": "/d/x/x.cfg"})
    rtl = ["--rtl-filelist", "/my rtl/nv_small.f", "--rtl-top", "NV_nvdla", "--rtl-define", "EMULATION",
           "--rtl-profile", "nv_small"]
    assert reproduce_command(trace, Settings(impl="rtl", ref="golden", rtl=rtl)) == (
        "nvdla-verif conform /d/x/x.cfg --impl rtl --rtl-filelist '/my rtl/nv_small.f' --rtl-top NV_nvdla "
        "--rtl-define EMULATION --rtl-profile nv_small --ref golden --json repro-nvidia-nv_small-x.json")


def test_a_traceback_is_known_by_its_exception_not_its_first_line():
    tail = ('the simulation wrote no result (log: /tmp/r/sim.log):\nTraceback (most recent call last):\n'
            '  File "/x/csb_agent.py", line 118, in transfer\n    raise CsbTimeout(f"no CSB response")\n'
            'rtl.bench.csb_agent.CsbTimeout: no CSB response to CSB read 0x0100c = 0x00000000 within 1000 cycles\n'
            ' (run folder: /tmp/rtl-run-ab12)')
    assert normalise(tail) == "rtl.bench.csb_agent.CsbTimeout: no CSB response to CSB read # = # within # cycles"


def test_a_long_bucket_name_is_cut_at_a_word_and_says_so():
    from ci.regression.signature import shortened

    message = ("pri_mem[0x80000000, +0x20): SDP output at pri_mem 0x80000000 (W=1 H=1 C=1 int8), bit-exact: "
               "1 of 32 elements mismatch, first at (0, 0, 3)")
    whole = ("pri_mem[#, +#): SDP output at pri_mem # (W=# H=# C=# int#), bit-exact: # of # elements mismatch, "
             "first at (#, #, #)")
    cut = normalise(message)
    assert cut.endswith(" ...") and len(cut) <= 90
    kept = cut.removesuffix(" ...")
    assert whole.startswith(kept) and whole[len(kept)] == " "
    assert shortened("short enough", 90) == "short enough"
