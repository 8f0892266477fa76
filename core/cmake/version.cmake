# Sets VANTAGE_VERSION (major.minor.patch) from core/include/vantage/version.hpp, the one
# place the version is written. Included before project() by the root and by core.
set(_vantage_version_header ${CMAKE_CURRENT_LIST_DIR}/../include/vantage/version.hpp)
file(READ ${_vantage_version_header} _vantage_version_text)
foreach(_vantage_part MAJOR MINOR PATCH)
  if(NOT _vantage_version_text MATCHES "#define VANTAGE_VERSION_${_vantage_part} ([0-9]+)")
    message(FATAL_ERROR "${_vantage_version_header} does not define VANTAGE_VERSION_${_vantage_part}")
  endif()
  set(_vantage_version_${_vantage_part} ${CMAKE_MATCH_1})
endforeach()
set(VANTAGE_VERSION ${_vantage_version_MAJOR}.${_vantage_version_MINOR}.${_vantage_version_PATCH})
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_vantage_version_header})
