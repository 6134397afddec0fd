// Loading cuBLAS and cuBLASLt with dlopen (why: cublas_api.h).
#include "backends/cuda/cublas_api.h"

#include <dlfcn.h>

#include <string>

#include "torchlet/error.h"

namespace torchlet::backend::cuda {

namespace {

// The library by its soname (the loader's search path), else from the toolkit torchlet was
// built with (TORCHLET_CUDA_LIBRARY_DIR), which is often not on the search path.
void* open_library(const std::string& soname) {
  // RTLD_NODELETE: the libraries start threads and register with the driver; never unmap them.
  constexpr int kFlags = RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE;
  void* handle = dlopen(soname.c_str(), kFlags);
  if (!handle)
    handle = dlopen((std::string(TORCHLET_CUDA_LIBRARY_DIR "/") + soname).c_str(), kFlags);
  if (!handle) {
    const char* reason = dlerror();
    TORCHLET_CHECK(false, "Expected the CUDA toolkit's ", soname,
                   " (cuBLAS, for GPU matrix products), but it could not be loaded: ",
                   reason ? reason : "unknown reason",
                   "; install the CUDA toolkit's libraries or add their folder to LD_LIBRARY_PATH");
  }
  return handle;
}

template <typename F>
void bind(F& f, void* library, const char* symbol, const std::string& soname) {
  f = reinterpret_cast<F>(dlsym(library, symbol));
  TORCHLET_CHECK(f, "Expected ", soname, " to define ", symbol,
                 ", but it does not (a different cuBLAS version than torchlet was built with?)");
}

CublasApi load() {
  const std::string major = std::to_string(CUBLAS_VER_MAJOR);
  const std::string blas_name = "libcublas.so." + major, lt_name = "libcublasLt.so." + major;
  void* blas = open_library(blas_name);
  void* lt = open_library(lt_name);
  CublasApi api{};
  bind(api.create, blas, "cublasCreate_v2", blas_name);
  bind(api.destroy, blas, "cublasDestroy_v2", blas_name);
  bind(api.set_stream, blas, "cublasSetStream_v2", blas_name);
  bind(api.set_workspace, blas, "cublasSetWorkspace_v2", blas_name);
  bind(api.sgemm, blas, "cublasSgemm_v2", blas_name);
  bind(api.dgemm, blas, "cublasDgemm_v2", blas_name);
  bind(api.sgemv, blas, "cublasSgemv_v2", blas_name);
  bind(api.status_name, blas, "cublasGetStatusName", blas_name);
  bind(api.status_string, blas, "cublasGetStatusString", blas_name);
  bind(api.lt_desc_create, lt, "cublasLtMatmulDescCreate", lt_name);
  bind(api.lt_desc_destroy, lt, "cublasLtMatmulDescDestroy", lt_name);
  bind(api.lt_desc_set, lt, "cublasLtMatmulDescSetAttribute", lt_name);
  bind(api.lt_layout_create, lt, "cublasLtMatrixLayoutCreate", lt_name);
  bind(api.lt_layout_destroy, lt, "cublasLtMatrixLayoutDestroy", lt_name);
  bind(api.lt_matmul, lt, "cublasLtMatmul", lt_name);
  return api;
}

}  // namespace

const CublasApi& cublas() {
  static const CublasApi api = load();
  return api;
}

}  // namespace torchlet::backend::cuda
