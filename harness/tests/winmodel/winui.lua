-- winui.lua - a model of what the Windows probe's user-interface operations
-- (clipboard_read, clipboard_write, sendinput) answer, for the Windows-only
-- priv.win_ui_* scenarios run on Linux (test_win_ui.sh).  A stand-in for the
-- one native part (USER32 under a job's UI restrictions on a desktop of the
-- run's own): never a Windows result.
--   mode "open"        the user's session reachable: the clipboard is written
--                      and read, SendInput inserts its event;
--   mode "restricted"  every call refused with ERROR_ACCESS_DENIED, as the
--                      job's JOB_OBJECT_UILIMIT_* and the private desktop do;
--   mode "silent"      SendInput inserts nothing and says nothing (UIPI's
--                      way), the clipboard refused with another error.
-- The adapter runs the real probe with each UI operation replaced by getpid
-- (so the other operations, the control among them, really run) and then
-- rewrites those operations' lines by the model, keeping their index.
local M = {}

local UI = { clipboard_read = 0, clipboard_write = 1, sendinput = 0 }

local function line(mode, i, op)
  local head = string.format('{"i":%d,"op":"%s",', i, op)
  if mode == "open" then
    if op == "clipboard_read" then return head .. '"ok":true,"errno":null,"data":"user-text"}' end
    if op == "sendinput" then return head .. '"ok":true,"errno":null,"inserted":1}' end
    return head .. '"ok":true,"errno":null}'
  elseif mode == "restricted" then
    local extra = op == "sendinput" and '"inserted":0,' or ""
    return head .. '"ok":false,' .. extra .. '"errno":"EACCES","step":"open","win32_error":"ERROR_ACCESS_DENIED","win32_code":5,"denied":true}'
  end
  if op == "sendinput" then
    return head .. '"ok":false,"inserted":0,"errno":"EIO","step":"send","win32_error":"ERROR_SUCCESS","win32_code":0,"denied":false}'
  end
  return head .. '"ok":false,"errno":"EBUSY","step":"open","win32_error":"ERROR_CLIPBOARD_NOT_OPEN","win32_code":1418,"denied":false}'
end

-- The probe argv with UI operations as getpid; the replaced indexes.
local function rewrite(cmd)
  local out, subst, i, k = { cmd[1] }, {}, 0, 2
  while k <= #cmd do
    local op = cmd[k]
    if UI[op] then
      subst[i] = op
      out[#out + 1] = "getpid"
      k = k + 1 + UI[op]
    else
      while k <= #cmd and cmd[k] ~= "--" do out[#out + 1] = cmd[k]; k = k + 1 end
    end
    if cmd[k] == "--" then out[#out + 1] = "--"; k = k + 1 end
    i = i + 1
  end
  return out, subst
end

function M.adapter(name, base, mode)
  local A = setmetatable({ name = name }, { __index = base })
  function A.sandbox(t, spec)
    local s = {}
    for k, v in pairs(spec) do s[k] = v end
    local argv, subst = rewrite(spec.command)
    s.command = argv
    local r = base.sandbox(t, s)
    local function model(text)
      local out = {}
      for l in (text or ""):gmatch("[^\n]*\n?") do
        local i = tonumber(l:match('^{"i":(%d+),'))
        out[#out + 1] = (i and subst[i]) and (line(mode, i, subst[i]) .. "\n") or l
      end
      return table.concat(out)
    end
    -- t:sandbox reads the outcome's stdout first, then the runner's.
    if r.outcome and r.outcome.stdout then r.outcome.stdout = model(r.outcome.stdout) end
    r.stdout = model(r.stdout)
    return r
  end
  return A
end

return M
