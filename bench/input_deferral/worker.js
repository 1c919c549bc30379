// Echoes each request on the way the page asked for.
const channel = new BroadcastChannel(self.name);
let port = null;
onmessage = (e) => {
  if (e.data.port) { port = e.data.port; return; }
  const reply = e.data;
  if (reply.via === 'postMessage') postMessage(reply);
  else if (reply.via === 'MessagePort') port.postMessage(reply);
  else channel.postMessage(reply);
};
