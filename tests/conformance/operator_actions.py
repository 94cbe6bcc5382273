"""What the OP's operator does when a tool Note asks for it, and the lock that makes it safe.

"Please make your OP rotate its signing keys now" (OP-Rotation-OP-Sig): the operator runs
`limette config rotate-keys` on the run's store, and the driver waits until Limette serves the
new keys (its `checkInterval`, a second). Tests run in parallel: a test that read the keys before
a rotation and got a token after it would see a key it never fetched. So every test holds the
lock shared for its whole run, and a rotation takes it alone: it waits for the running tests and
holds new ones back until the new keys are served.
"""
import subprocess
import threading
import time

import requests


class SharedLock:
    """Many holders at once (tests), or one alone (a rotation)."""

    def __init__(self):
        self.cond = threading.Condition()
        self.shared = 0
        self.alone = False

    def acquire_shared(self):
        with self.cond:
            self.cond.wait_for(lambda: not self.alone)
            self.shared += 1

    def release_shared(self):
        with self.cond:
            self.shared -= 1
            self.cond.notify_all()

    def acquire_alone(self):
        with self.cond:
            self.cond.wait_for(lambda: not self.alone)
            self.alone = True
            self.cond.wait_for(lambda: self.shared == 0)

    def release_alone(self):
        with self.cond:
            self.alone = False
            self.cond.notify_all()


class Operator:
    def __init__(self, binary, work, op_port):
        self.binary, self.work, self.op_port = binary, work, op_port
        self.lock = SharedLock()

    def jwks(self):
        return requests.get("http://127.0.0.1:{}/oauth2/jwks".format(self.op_port),
                            timeout=10).text

    def on_note(self, text):
        """Called by a test's browser, holding the lock shared, on each Note."""
        if "rotate its signing keys" not in text:
            return
        self.lock.release_shared()
        self.lock.acquire_alone()
        try:
            before = self.jwks()
            subprocess.run([self.binary, "-c", self.work + "/limette.ini", "--data", self.work,
                            "config", "-yes", "1", "rotate-keys"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(100):
                if self.jwks() != before:
                    break
                time.sleep(0.1)
        finally:
            self.lock.release_alone()
            self.lock.acquire_shared()
