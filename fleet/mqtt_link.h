// One MQTT client of the fleet (Paho C, MQTTClient over TLS): QoS 1, a persistent session
// (clean session off, a fixed client id), reconnection after a broker restart, and received
// messages queued for the caller. Publish returns only once the broker acknowledged (PUBACK),
// reconnecting and resending as needed: with idempotent receivers ((device, round) for
// updates, the round for the global record) a message is never lost, and a resend is counted
// once.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace edgefold::fleet {

struct MqttConfig {
  std::string uri;        // ssl://127.0.0.1:PORT
  std::string client_id;  // fixed per device: the broker keeps its session
  std::string user, password;
  std::string ca_file;         // the broker's CA (TLS server authentication)
  int connect_timeout_s = 30;  // keeps retrying for this long (a broker restart)
};

struct MqttMessage {
  std::string topic;
  std::vector<uint8_t> payload;
  bool retained = false;
};

class MqttLink {
 public:
  explicit MqttLink(MqttConfig config);
  ~MqttLink();
  MqttLink(const MqttLink&) = delete;
  MqttLink& operator=(const MqttLink&) = delete;

  // Connects (retrying until connect_timeout_s) and (re)subscribes to the topics given so far.
  bool Connect(std::string* error);
  bool Subscribe(const std::string& topic, std::string* error);
  // QoS 1, until acknowledged or `timeout` has passed (reconnecting in between).
  bool Publish(const std::string& topic, const uint8_t* bytes, size_t n, bool retained,
               std::chrono::seconds timeout, std::string* error);
  // The next received message, waiting up to `timeout` (reconnecting if the link dropped).
  bool Receive(MqttMessage* message, std::chrono::milliseconds timeout);
  size_t reconnects() const { return reconnects_; }

  // Paho callbacks.
  void OnMessage(MqttMessage m);
  void OnLost();

 private:
  bool EnsureConnected(std::string* error);
  MqttConfig config_;
  void* client_ = nullptr;
  std::vector<std::string> topics_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<MqttMessage> queue_;
  bool lost_ = false;
  size_t reconnects_ = 0;
};

}  // namespace edgefold::fleet
