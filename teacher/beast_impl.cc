// The compiled part of Boost.Beast (BOOST_BEAST_SEPARATE_COMPILATION; target
// seragen_beast in cmake/Dependencies.cmake). Only the teacher's server and
// the tests' replay server parse HTTP with Beast, so only they link it;
// loop and http use Asio alone.
#include <boost/beast/src.hpp>
