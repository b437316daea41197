// MqttLink (mqtt_link.h) over Paho C's synchronous client with callbacks.
#include "mqtt_link.h"

#include <MQTTClient.h>

#include <thread>

namespace edgefold::fleet {
namespace {

int MessageArrived(void* context, char* topic, int topic_len, MQTTClient_message* m) {
  MqttMessage msg;
  msg.topic = topic_len > 0 ? std::string(topic, size_t(topic_len)) : std::string(topic);
  const uint8_t* p = static_cast<const uint8_t*>(m->payload);
  msg.payload.assign(p, p + m->payloadlen);
  msg.retained = m->retained != 0;
  static_cast<MqttLink*>(context)->OnMessage(std::move(msg));
  MQTTClient_freeMessage(&m);
  MQTTClient_free(topic);
  return 1;
}

void ConnectionLost(void* context, char*) { static_cast<MqttLink*>(context)->OnLost(); }

}  // namespace

MqttLink::MqttLink(MqttConfig config) : config_(std::move(config)) {
  MQTTClient c = nullptr;
  if (MQTTClient_create(&c, config_.uri.c_str(), config_.client_id.c_str(),
                        MQTTCLIENT_PERSISTENCE_NONE, nullptr) == MQTTCLIENT_SUCCESS) {
    client_ = c;
    MQTTClient_setCallbacks(c, this, ConnectionLost, MessageArrived, nullptr);
  }
}

MqttLink::~MqttLink() {
  if (client_ == nullptr) return;
  MQTTClient c = client_;
  if (MQTTClient_isConnected(c)) MQTTClient_disconnect(c, 1000);
  MQTTClient_destroy(&c);
}

void MqttLink::OnMessage(MqttMessage m) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(std::move(m));
  cv_.notify_all();
}

void MqttLink::OnLost() {
  std::lock_guard<std::mutex> lock(mu_);
  lost_ = true;
  cv_.notify_all();
}

bool MqttLink::Connect(std::string* error) {
  if (client_ == nullptr) {
    *error = "cannot create an MQTT client for " + config_.uri;
    return false;
  }
  MQTTClient_SSLOptions ssl = MQTTClient_SSLOptions_initializer;
  ssl.trustStore = config_.ca_file.c_str();
  ssl.enableServerCertAuth = 1;
  ssl.verify = 1;
  MQTTClient_connectOptions o = MQTTClient_connectOptions_initializer;
  o.keepAliveInterval = 5;
  o.cleansession = 0;  // persistent session: subscriptions and queued QoS 1 messages survive
  o.username = config_.user.c_str();
  o.password = config_.password.c_str();
  o.ssl = &ssl;
  o.connectTimeout = 2;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(config_.connect_timeout_s);
  int rc = -1;
  while ((rc = MQTTClient_connect(client_, &o)) != MQTTCLIENT_SUCCESS) {
    if (std::chrono::steady_clock::now() > deadline) {
      *error = "cannot connect to " + config_.uri + " as '" + config_.user + "' (code " +
               std::to_string(rc) + ")";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    lost_ = false;
  }
  // Retained messages come on subscribe: subscribing again after a reconnect brings the
  // latest global record even if the broker's queue for this session was empty.
  for (const std::string& t : topics_)
    if (MQTTClient_subscribe(client_, t.c_str(), 1) != MQTTCLIENT_SUCCESS) {
      *error = "cannot subscribe to " + t;
      return false;
    }
  return true;
}

bool MqttLink::EnsureConnected(std::string* error) {
  bool lost;
  {
    std::lock_guard<std::mutex> lock(mu_);
    lost = lost_;
  }
  if (!lost && MQTTClient_isConnected(client_)) return true;
  ++reconnects_;
  return Connect(error);
}

bool MqttLink::Subscribe(const std::string& topic, std::string* error) {
  topics_.push_back(topic);
  const int rc = MQTTClient_subscribe(client_, topic.c_str(), 1);
  if (rc != MQTTCLIENT_SUCCESS) {
    *error = "cannot subscribe to " + topic + " (code " + std::to_string(rc) + ")";
    return false;
  }
  return true;
}

bool MqttLink::Publish(const std::string& topic, const uint8_t* bytes, size_t n, bool retained,
                       std::chrono::seconds timeout, std::string* error) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!EnsureConnected(error)) continue;
    MQTTClient_deliveryToken token = 0;
    int rc = MQTTClient_publish(client_, topic.c_str(), int(n), const_cast<uint8_t*>(bytes), 1,
                                retained ? 1 : 0, &token);
    if (rc == MQTTCLIENT_SUCCESS) rc = MQTTClient_waitForCompletion(client_, token, 5000);
    if (rc == MQTTCLIENT_SUCCESS) return true;
    *error = "publish to " + topic + " failed (code " + std::to_string(rc) + ")";
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

bool MqttLink::Receive(MqttMessage* message, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_until(
          lock,
          std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(200)),
          [&] { return !queue_.empty() || lost_; });
      if (!queue_.empty()) {
        *message = std::move(queue_.front());
        queue_.pop_front();
        return true;
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::string error;
    if (!EnsureConnected(&error)) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace edgefold::fleet
