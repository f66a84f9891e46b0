"""Digesting Nsight Compute's CSV into one entry per kernel."""

from __future__ import annotations

from judge.harness.parent.ncu import parse

CSV = """==PROF== Connected to process 123
==PROF== Profiling "add_kernel": 0%....50%....100% - 1 pass
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","123","python3","127.0.0.1","add_kernel","1","7","(1024, 1, 1)","(16384, 1, 1)","0","9.0","Command line profiler metrics","dram__throughput.avg.pct_of_peak_sustained_elapsed","%","91.52"
"0","123","python3","127.0.0.1","add_kernel","1","7","(1024, 1, 1)","(16384, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","47.23"
"0","123","python3","127.0.0.1","add_kernel","1","7","(1024, 1, 1)","(16384, 1, 1)","0","9.0","Command line profiler metrics","launch__registers_per_thread","register/thread","16"
"0","123","python3","127.0.0.1","add_kernel","1","7","(1024, 1, 1)","(16384, 1, 1)","0","9.0","Command line profiler metrics","launch__shared_mem_per_block_static","Kbyte","1.02"
"0","123","python3","127.0.0.1","add_kernel","1","7","(1024, 1, 1)","(16384, 1, 1)","0","9.0","Command line profiler metrics","sm__warps_active.avg.pct_of_peak_sustained_active","%","80.1"
"1","123","python3","127.0.0.1","fix_kernel","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","2,048"
"2","123","python3","127.0.0.1","add_kernel","1","7","(1024, 1, 1)","(16384, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","2.77"
==PROF== Disconnected from process 123
"""


def test_ncu_rows_become_one_digest_per_kernel_with_units_converted() -> None:
    kernels = parse(CSV)
    assert [k.name for k in kernels] == ["add_kernel", "fix_kernel"]
    add, fix = kernels
    assert add.calls == 2 and abs(add.duration_us - 50.0) < 1e-9
    assert add.dram_sol_pct == 91.52 and add.achieved_occupancy_pct == 80.1
    assert add.registers == 16 and add.shared_bytes == 1020
    assert fix.calls == 1 and abs(fix.duration_us - 2.048) < 1e-9


def test_output_without_csv_rows_gives_no_kernels() -> None:
    assert parse("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n") == []
