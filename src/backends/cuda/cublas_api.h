// cuBLAS and cuBLASLt, loaded when the first GPU is used. The two libraries are over 500 MB;
// linked at build time they cost every torchlet process about 200 MB of resident memory and
// 170 ms of start-up (measured: `torchlet info` 227 MB / 0.18 s linked, 10 MB / 0.01 s without),
// even on a machine that has no GPU. The headers give the types; dlsym gives the functions.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

namespace torchlet::backend::cuda {

struct CublasApi {
  decltype(&cublasCreate_v2) create;
  decltype(&cublasDestroy_v2) destroy;
  decltype(&cublasSetStream_v2) set_stream;
  decltype(&cublasSetWorkspace_v2) set_workspace;
  decltype(&cublasSgemm_v2) sgemm;
  decltype(&cublasDgemm_v2) dgemm;
  decltype(&cublasSgemv_v2) sgemv;
  decltype(&cublasGetStatusName) status_name;
  decltype(&cublasGetStatusString) status_string;
  decltype(&cublasLtMatmulDescCreate) lt_desc_create;
  decltype(&cublasLtMatmulDescDestroy) lt_desc_destroy;
  decltype(&cublasLtMatmulDescSetAttribute) lt_desc_set;
  decltype(&cublasLtMatrixLayoutCreate) lt_layout_create;
  decltype(&cublasLtMatrixLayoutDestroy) lt_layout_destroy;
  decltype(&cublasLtMatmul) lt_matmul;
};

// Loads libcublas.so.N and libcublasLt.so.N (N: the toolkit's major version) on first use.
// Throws torchlet::Error naming the library and dlopen's reason when one is missing.
const CublasApi& cublas();

}  // namespace torchlet::backend::cuda
