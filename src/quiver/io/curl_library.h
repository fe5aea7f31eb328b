// Internal: libcurl, opened on the first remote read rather than linked.
// Linked, libcurl and the 28 libraries it brings (TLS, Kerberos, LDAP, ...)
// were mapped at every start of every program using quiver, reading URLs or
// not (the `quiver` command's start grew from 1.8 to 6-10 ms). The headers
// are still those of the build; the functions come from dlopen/dlsym.
#pragma once

#include <curl/curl.h>

#include <string>

#include "quiver/status.h"

namespace quiver::io::internal {

// The libcurl functions quiver calls, by the names libcurl gives them.
struct CurlLibrary {
  CURLcode (*global_init)(long flags);
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL* easy);
  void (*easy_reset)(CURL* easy);
  CURLcode (*easy_setopt)(CURL* easy, CURLoption option, ...);
  CURLcode (*easy_perform)(CURL* easy);
  const char* (*easy_strerror)(CURLcode code);
  CURLSH* (*share_init)();
  CURLSHcode (*share_setopt)(CURLSH* share, CURLSHoption option, ...);
  CURLSHcode (*share_cleanup)(CURLSH* share);
  curl_slist* (*slist_append)(curl_slist* list, const char* text);
  void (*slist_free_all)(curl_slist* list);
  curl_version_info_data* (*version_info)(CURLversion stamp);
};

// libcurl, opened and initialised (curl_global_init) by the first call;
// later calls return the same. Where it comes from, first found:
//  1. the module SetCurlModule named (the Python package names the small
//     module of its wheel that links libcurl, so the wheel's own copy);
//  2. the module the QUIVER_CURL_MODULE environment variable names;
//  3. ../libquiver_curl.so from the running program's folder (the wheel's
//     `quiver` command is quiver/bin/quiver, the module quiver/...so);
//  4. the system's libcurl.so.4.
// An error saying what was tried and how to install libcurl otherwise.
Result<const CurlLibrary*> Curl();

// A shared module that links libcurl, tried first (before the first Curl()
// call; later ones change nothing).
void SetCurlModule(std::string path);

}  // namespace quiver::io::internal
