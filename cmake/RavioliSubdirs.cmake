# rv_add_subdirectories(<dir>): add_subdirectory() for every directory directly
# below <dir> that has a CMakeLists.txt, in name order. Components (modules,
# tools, tests, optional library parts) are added this way, so adding one does
# not mean editing a shared CMakeLists.txt.
function(rv_add_subdirectories dir)
  file(GLOB subs LIST_DIRECTORIES true "${dir}/*")
  list(SORT subs)
  foreach(d ${subs})
    if(IS_DIRECTORY "${d}" AND EXISTS "${d}/CMakeLists.txt")
      add_subdirectory("${d}")
    endif()
  endforeach()
endfunction()
