"""Static checks before anything runs: forbidden calls, the CUDA entry point, library kernels."""

from __future__ import annotations

from judge.harness.source_checks import cuda_solve_parameters, find_forbidden, library_kernels, own_kernels


def test_a_forbidden_call_is_found_with_its_line() -> None:
    source = "import torch\n\ndef solve(a, b, c, n):\n    torch.add(a, b, out=c)\n"
    [finding] = find_forbidden(source, "triton", ["torch.add"])
    assert finding.line == 4 and finding.text == "torch.add(a, b, out=c)"


def test_a_forbidden_name_in_a_python_comment_is_not_a_finding() -> None:
    source = "def solve(a, b, c, n):\n    # unlike torch.add, this kernel ...\n    pass\n"
    assert find_forbidden(source, "triton", ["torch.add"]) == []


def test_a_forbidden_name_in_a_string_is_a_finding_because_getattr_can_use_it() -> None:
    source = 'import torch\nf = getattr(torch, "add")\nsrc = "torch.add"\n'
    assert [f.line for f in find_forbidden(source, "pytorch", ["torch.add"])] == [3]


def test_cuda_comments_are_ignored_but_includes_are_not() -> None:
    source = "// no cublas here\n/* cublas\n   either */\n#include <cublas_v2.h>\n"
    [finding] = find_forbidden(source, "cuda", ["cublas"])
    assert finding.line == 4


def test_the_cuda_entry_point_parameters_are_read_from_the_source() -> None:
    source = 'extern "C" void solve(const float* a, const float* b,\n float* c, int n) { }'
    assert cuda_solve_parameters(source) == ["const float* a", "const float* b", "float* c", "int n"]
    assert cuda_solve_parameters('extern "C" {\nvoid solve(float* x, int n) {}\n}') == ["float* x", "int n"]
    assert cuda_solve_parameters("void solve(float* x) {}") is None
    assert cuda_solve_parameters('// extern "C" void solve(int n)\n') is None


def test_library_kernels_are_recognised_and_contestants_kernels_are_not() -> None:
    names = [
        "matmul_kernel",
        "gemm_kernel_tiled",
        "softmax_kernel",
        "_Z10add_kernelPKfS0_Pfi",
        "nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNN",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, float*)",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor>>>",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul>>(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
        "cupy_add",
        "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm>(Params)",
        "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn",
        "triton_poi_fused_add_0",
        "Memset (Device)",
        "my_sm90_kernel",
        # A TMA kernel of one's own takes CUtensorMap parameters ("cutensor" names the library).
        "void gemm_wgmma<true>(CUtensorMap, CUtensorMap, __nv_bfloat16*, int, int, int)",
        # A library kernel in an anonymous namespace: only the parameter list is left out.
        "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false>(float*, float const*, int)",
    ]
    found = library_kernels(names)
    assert "matmul_kernel" not in found and "gemm_kernel_tiled" not in found and "softmax_kernel" not in found
    assert "my_sm90_kernel" not in found and "Memset (Device)" not in found
    assert not any("gemm_wgmma" in n for n in found)
    assert not any("FillFunctor" in n for n in found)  # zeroing an accumulator is allowed
    assert any("softmax_warp_forward" in n for n in found)
    assert len(found) == 9


def test_copies_and_fills_are_neither_library_compute_nor_the_submissions_own_kernels() -> None:
    names = [
        "Memcpy HtoD (Pageable -> Device)",
        "Memcpy DtoD (Device -> Device)",
        "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>>",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
    ]
    assert library_kernels(names) == [] and own_kernels(names) == []
    assert own_kernels([*names, "copy_kernel", "nvjet_tst_x"]) == ["copy_kernel"]
