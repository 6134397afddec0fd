// DynLib: dlopen with RTLD_NODELETE (a driver that started threads must never be unmapped),
// and the loaded file's real path from the link map, for the report.
#include "hw/dynlib.h"

#include <dlfcn.h>
#include <link.h>

namespace torchlet::hw {

DynLib::DynLib(const std::vector<std::string>& sonames) {
  for (const std::string& soname : sonames) {
    handle_ = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle_) {
      const link_map* map = nullptr;
      path_ = dlinfo(handle_, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name[0] != '\0'
                  ? map->l_name
                  : soname;
      error_.clear();
      return;
    }
    if (error_.empty()) {  // the first name's error is the one users recognise
      const char* why = dlerror();
      error_ = why ? why : soname + ": cannot be loaded";
    }
  }
}

DynLib::~DynLib() {
  if (handle_) dlclose(handle_);
}

void* DynLib::lookup(const char* symbol) const {
  return handle_ ? dlsym(handle_, symbol) : nullptr;
}

}  // namespace torchlet::hw
