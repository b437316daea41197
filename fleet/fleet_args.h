// "--name value" arguments of the fleet programs, and the MQTT settings they share.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "mqtt_link.h"

namespace edgefold::fleet {

class Args {
 public:
  // False (with *error) on a stray word or a flag without its value.
  bool Parse(int argc, char** argv, std::string* error) {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a.rfind("--", 0) != 0 || i + 1 >= argc) {
        *error = "expected --name value, found '" + a + "'";
        return false;
      }
      values_[a.substr(2)] = argv[++i];
    }
    return true;
  }
  std::string Get(const std::string& name, const std::string& fallback = "") const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }
  int Int(const std::string& name, int fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : std::atoi(it->second.c_str());
  }
  bool Has(const std::string& name) const { return values_.count(name) > 0; }

 private:
  std::map<std::string, std::string> values_;
};

// --uri, --ca, --user, --password (or --password-file), --client-id.
inline MqttConfig MqttFromArgs(const Args& a, const std::string& default_id) {
  MqttConfig c;
  c.uri = a.Get("uri", "ssl://127.0.0.1:8883");
  c.ca_file = a.Get("ca");
  c.user = a.Get("user", default_id);
  c.password = a.Get("password");
  if (a.Has("password-file")) {
    if (FILE* f = std::fopen(a.Get("password-file").c_str(), "r")) {
      char buf[256] = {};
      if (std::fgets(buf, sizeof buf, f)) {
        c.password = buf;
        while (!c.password.empty() && (c.password.back() == '\n' || c.password.back() == '\r'))
          c.password.pop_back();
      }
      std::fclose(f);
    }
  }
  c.client_id = a.Get("client-id", default_id);
  c.connect_timeout_s = a.Int("connect-timeout", 30);
  return c;
}

}  // namespace edgefold::fleet
